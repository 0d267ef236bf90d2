/**
 * Hand-written for speed (see encoder.ts): reads the normalizer, pre-tokenizer and post-processor
 * sections of tokenizer.json into what the fast encoder runs, or the reason it cannot run them
 * exactly. Only what the supported tokenizers (Qwen3, Llama 3, gpt-oss, DeepSeek-V3, GPT-2-style)
 * use is accepted; every unknown type, option or key is refused rather than approximated.
 */
import { GPT2_PATTERN, translateOnigPattern, type SetMapper } from './onig-regex.js';

export type Refused = { refused: string };

/** A split pattern as JS source, with its one-character sets and a way to rewrite them (ascii-shadow.ts). */
export interface SplitPattern {
  source: string;
  sets: readonly string[];
  emit: (map: SetMapper) => string;
}
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownKeys(node: Json, allowed: readonly string[], what: string): Refused | null {
  const extra = Object.keys(node).filter((k) => !allowed.includes(k));
  return extra.length === 0 ? null : { refused: `${what} has unsupported options ${extra.join(', ')}` };
}

/** True for NFC, false for none. */
export function readNormalizer(node: unknown): boolean | Refused {
  if (node === null || node === undefined) return false;
  if (!isObject(node)) return { refused: 'normalizer is not an object' };
  if (node.type === 'NFC') return unknownKeys(node, ['type'], 'the NFC normalizer') ?? true;
  if (node.type === 'Sequence') {
    const bad = unknownKeys(node, ['type', 'normalizers'], 'the Sequence normalizer');
    if (bad) return bad;
    if (!Array.isArray(node.normalizers)) return { refused: 'Sequence normalizer without a normalizers list' };
    let nfc = false;
    for (const inner of node.normalizers) {
      const r = readNormalizer(inner);
      if (typeof r !== 'boolean') return r;
      // NFC is idempotent, so any number of them is one.
      nfc ||= r;
    }
    return nfc;
  }
  return { refused: `unsupported normalizer ${JSON.stringify(node.type)}` };
}

/**
 * The split patterns (applied in order, each to every piece of the one before, each
 * match and each gap between matches kept as a piece: `behavior: Isolated`), ending with the byte
 * mapping of ByteLevel, which must come last.
 */
export function readPreTokenizer(node: unknown): SplitPattern[] | Refused {
  if (!isObject(node)) return { refused: 'no pre-tokenizer: not a byte-level tokenizer' };
  const steps: Json[] = [];
  const flatten = (n: Json): Refused | null => {
    if (n.type !== 'Sequence') {
      steps.push(n);
      return null;
    }
    const bad = unknownKeys(n, ['type', 'pretokenizers'], 'the Sequence pre-tokenizer');
    if (bad) return bad;
    if (!Array.isArray(n.pretokenizers)) return { refused: 'Sequence pre-tokenizer without a pretokenizers list' };
    for (const inner of n.pretokenizers) {
      if (!isObject(inner)) return { refused: 'pre-tokenizer entry is not an object' };
      const r = flatten(inner);
      if (r) return r;
    }
    return null;
  };
  const bad = flatten(node);
  if (bad) return bad;
  const last = steps.pop();
  if (last?.type !== 'ByteLevel') return { refused: 'the pre-tokenizer does not end with ByteLevel' };
  const patterns: string[] = [];
  for (const step of steps) {
    const r = readSplit(step);
    if (typeof r !== 'string') return r;
    patterns.push(r);
  }
  const byteLevel = readByteLevel(last);
  if (typeof byteLevel !== 'boolean') return byteLevel;
  if (byteLevel) patterns.push(GPT2_PATTERN);
  const translated: SplitPattern[] = [];
  for (const p of patterns) {
    const t = translateOnigPattern(p);
    if (!t.ok) return { refused: `split ${t.reason}` };
    translated.push(t);
  }
  return translated;
}

function readSplit(step: Json): string | Refused {
  if (step.type !== 'Split') return { refused: `unsupported pre-tokenizer ${JSON.stringify(step.type)} before ByteLevel` };
  const bad = unknownKeys(step, ['type', 'pattern', 'behavior', 'invert'], 'a Split pre-tokenizer');
  if (bad) return bad;
  if (step.behavior !== 'Isolated') return { refused: `Split behavior ${JSON.stringify(step.behavior)}` };
  if (step.invert !== false && step.invert !== undefined) return { refused: 'Split with invert' };
  const pattern = step.pattern;
  if (!isObject(pattern) || typeof pattern.Regex !== 'string' || Object.keys(pattern).length !== 1) {
    return { refused: `Split pattern ${JSON.stringify(pattern)} (only Regex patterns)` };
  }
  return pattern.Regex;
}

/** Whether ByteLevel splits with the GPT-2 pattern itself (`use_regex`). */
function readByteLevel(step: Json): boolean | Refused {
  const bad = unknownKeys(step, ['type', 'add_prefix_space', 'trim_offsets', 'use_regex'], 'the ByteLevel pre-tokenizer');
  if (bad) return bad;
  if (step.add_prefix_space !== false) return { refused: 'ByteLevel with add_prefix_space' };
  // Rust's serde default for use_regex is true, as is the JS library's.
  if (step.use_regex === undefined) return true;
  if (typeof step.use_regex !== 'boolean') return { refused: 'ByteLevel use_regex is not a boolean' };
  return step.use_regex;
}

/** These post-processors only add special tokens (not asked for here) or move offsets. */
const IDS_NEUTRAL_PROCESSORS = new Set(['ByteLevel', 'TemplateProcessing', 'RobertaProcessing', 'BertProcessing']);

export function checkPostProcessor(node: unknown): Refused | null {
  if (node === null || node === undefined) return null;
  if (!isObject(node)) return { refused: 'post_processor is not an object' };
  if (node.type === 'Sequence') {
    if (!Array.isArray(node.processors)) return { refused: 'Sequence post-processor without a processors list' };
    for (const p of node.processors) {
      const r = checkPostProcessor(p);
      if (r) return r;
    }
    return null;
  }
  return typeof node.type === 'string' && IDS_NEUTRAL_PROCESSORS.has(node.type) ? null : { refused: `unsupported post-processor ${JSON.stringify(node.type)}` };
}
