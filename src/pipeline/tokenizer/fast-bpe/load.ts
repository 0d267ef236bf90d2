/**
 * Builds a FastBpeEncoder (hand-written for speed, see encoder.ts) from a parsed tokenizer.json,
 * or says why it cannot encode that tokenizer exactly. Accepted: model BPE over the byte-level
 * alphabet (no byte_fallback, no dropout, no subword prefix/suffix, `ignore_merges` either way,
 * merges as "a b" strings or [a, b] pairs); normalizer none / NFC / a Sequence of those;
 * pre-tokenizer ByteLevel (add_prefix_space off) alone or after Split{Regex, Isolated} stages;
 * added tokens without lstrip / rstrip / single_word. Everything else is refused.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AddedTokenFinder } from './added-tokens.js';
import { byteLevelAlphabet } from './byte-level.js';
import { FastBpeEncoder } from './encoder.js';
import { PairTable } from './pair-table.js';
import { checkPostProcessor, readNormalizer, readPreTokenizer, type Refused } from './text-stages.js';

type Json = Record<string, unknown>;
export type FastBpeLoad = { encoder: FastBpeEncoder } | Refused;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const unset = (v: unknown) => v === null || v === undefined;

const MODEL_KEYS = ['type', 'dropout', 'unk_token', 'continuing_subword_prefix', 'end_of_word_suffix', 'fuse_unk', 'byte_fallback', 'ignore_merges', 'vocab', 'merges'];
const ADDED_KEYS = ['id', 'content', 'single_word', 'lstrip', 'rstrip', 'normalized', 'special'];

interface AddedToken {
  content: string;
  id: number;
  normalized: boolean;
}

function readModel(model: unknown): { vocab: Map<string, number>; merges: unknown[]; ignoreMerges: boolean } | Refused {
  if (!isObject(model) || model.type !== 'BPE') return { refused: `model ${JSON.stringify(isObject(model) ? model.type : model)} is not BPE` };
  const extra = Object.keys(model).filter((k) => !MODEL_KEYS.includes(k));
  if (extra.length > 0) return { refused: `BPE model has unsupported options ${extra.join(', ')}` };
  if (!unset(model.dropout) && model.dropout !== 0) return { refused: 'BPE dropout' };
  if (model.byte_fallback === true) return { refused: 'BPE byte_fallback' };
  for (const key of ['continuing_subword_prefix', 'end_of_word_suffix'] as const) {
    if (!unset(model[key]) && model[key] !== '') return { refused: `BPE ${key}` };
  }
  if (!unset(model.ignore_merges) && typeof model.ignore_merges !== 'boolean') return { refused: 'BPE ignore_merges is not a boolean' };
  if (!isObject(model.vocab) || !Array.isArray(model.merges)) return { refused: 'BPE model without vocab or merges' };
  const vocab = new Map<string, number>();
  const entries = model.vocab;
  // for-in rather than Object.entries: no pair array per token (200k of them).
  for (const token in entries) {
    const id = entries[token];
    if (!Number.isInteger(id) || (id as number) < 0) return { refused: `vocab id of ${JSON.stringify(token)} is not an integer` };
    vocab.set(token, id as number);
  }
  return { vocab, merges: model.merges, ignoreMerges: model.ignore_merges === true };
}

/**
 * The merge table. As in Rust (tokenizers/src/models/bpe/model.rs, BpeBuilder::build) both parts
 * and their concatenation must be in the vocab; a string merge splits at its first space.
 */
function readMerges(merges: unknown[], vocab: ReadonlyMap<string, number>): PairTable | Refused {
  const pairs = new PairTable(merges.length);
  for (let rank = 0; rank < merges.length; rank++) {
    const m = merges[rank];
    let a: unknown;
    let b: unknown;
    if (typeof m === 'string') {
      const space = m.indexOf(' ');
      if (space < 0) return { refused: `merge ${JSON.stringify(m)} has no space` };
      a = m.slice(0, space);
      b = m.slice(space + 1);
    } else if (Array.isArray(m) && m.length === 2) {
      [a, b] = m;
    }
    if (typeof a !== 'string' || typeof b !== 'string') return { refused: `merge ${JSON.stringify(m)} is not a pair of strings` };
    const left = vocab.get(a);
    const right = vocab.get(b);
    const merged = vocab.get(a + b);
    if (left === undefined || right === undefined || merged === undefined) return { refused: `merge ${JSON.stringify(m)} has a part outside the vocab` };
    pairs.set(left, right, rank, merged);
  }
  return pairs;
}

/**
 * Added tokens, checked to get the ids the Rust library gives them: it assigns each token not in
 * the model vocab the next id after the vocab (AddedVocabulary::add_tokens), whatever the JSON
 * says; the JS library takes the JSON id. Where the two could differ the tokenizer is refused.
 */
function readAddedTokens(list: unknown, vocab: ReadonlyMap<string, number>): AddedToken[] | Refused {
  if (unset(list)) return [];
  if (!Array.isArray(list)) return { refused: 'added_tokens is not a list' };
  const tokens: AddedToken[] = [];
  const seen = new Set<string>();
  let maxAdded = -1;
  for (const t of list) {
    if (!isObject(t)) return { refused: 'an added token is not an object' };
    const extra = Object.keys(t).filter((k) => !ADDED_KEYS.includes(k));
    if (extra.length > 0) return { refused: `added token options ${extra.join(', ')}` };
    const { content, id } = t;
    if (typeof content !== 'string' || content === '' || !(content as string & { isWellFormed(): boolean }).isWellFormed()) {
      return { refused: `added token ${JSON.stringify(content)} has no usable content` };
    }
    if (!Number.isInteger(id)) return { refused: `added token ${JSON.stringify(content)} has no integer id` };
    for (const flag of ['single_word', 'lstrip', 'rstrip'] as const) {
      if (t[flag] !== false) return { refused: `added token ${JSON.stringify(content)} has ${flag} ${JSON.stringify(t[flag])}` };
    }
    if (typeof t.normalized !== 'boolean' || typeof t.special !== 'boolean') return { refused: `added token ${JSON.stringify(content)} without normalized/special flags` };
    if (seen.has(content)) return { refused: `added token ${JSON.stringify(content)} listed twice` };
    seen.add(content);
    const inVocab = vocab.get(content);
    const rustId = inVocab ?? (maxAdded >= vocab.size ? maxAdded + 1 : vocab.size);
    if (rustId !== id) return { refused: `added token ${JSON.stringify(content)} has id ${String(id)} but the Rust library gives it ${rustId}` };
    maxAdded = Math.max(maxAdded, rustId);
    tokens.push({ content, id: id as number, normalized: t.normalized });
  }
  return tokens;
}

/** Options of tokenizer_config.json that change how the JS library encodes. */
function checkTokenizerConfig(config: Json | null): Refused | null {
  if (config?.remove_space === true) return { refused: 'tokenizer_config remove_space' };
  if (config?.do_lowercase_and_remove_accent === true) return { refused: 'tokenizer_config do_lowercase_and_remove_accent' };
  return null;
}

const refused = (r: unknown): r is Refused => isObject(r) && typeof r.refused === 'string';

/** The encoder of a parsed tokenizer.json (and its tokenizer_config.json), or why there is none. */
export function buildFastBpeEncoder(tokenizerJson: unknown, tokenizerConfig: Json | null = null): FastBpeLoad {
  if (!isObject(tokenizerJson)) return { refused: 'tokenizer.json is not an object' };
  const json = tokenizerJson;
  if (!unset(json.truncation) || !unset(json.padding)) return { refused: 'tokenizer.json sets truncation or padding' };
  const cfg = checkTokenizerConfig(tokenizerConfig);
  if (cfg) return cfg;
  const post = checkPostProcessor(json.post_processor);
  if (post) return post;
  const nfc = readNormalizer(json.normalizer);
  if (refused(nfc)) return nfc;
  const splits = readPreTokenizer(json.pre_tokenizer);
  if (refused(splits)) return splits;
  const model = readModel(json.model);
  if (refused(model)) return model;
  const { vocab } = model;
  const byteChars = byteLevelAlphabet();
  const byteIds = new Int32Array(256);
  for (let b = 0; b < 256; b++) {
    const id = vocab.get(byteChars[b]);
    if (id === undefined) return { refused: `the vocab lacks the byte-level token of byte ${b}` };
    byteIds[b] = id;
  }
  const pairs = readMerges(model.merges, vocab);
  if (refused(pairs)) return pairs;
  const added = readAddedTokens(json.added_tokens, vocab);
  if (refused(added)) return added;
  const raw = added.filter((t) => !t.normalized);
  const normalized = added.filter((t) => t.normalized).map((t) => ({ ...t, content: nfc ? t.content.normalize('NFC') : t.content }));
  return {
    encoder: new FastBpeEncoder({
      nfc,
      splits,
      ignoreMerges: model.ignoreMerges,
      // Read only for ignore_merges: otherwise not kept (200k strings).
      vocab: model.ignoreMerges ? vocab : new Map(),
      byteIds,
      byteChars,
      pairs,
      rawTokens: raw.length > 0 ? new AddedTokenFinder(raw) : null,
      normalizedTokens: normalized.length > 0 ? new AddedTokenFinder(normalized) : null,
    }),
  };
}

/** Reads `directory`/tokenizer.json (and tokenizer_config.json when present) and builds the encoder. */
export async function loadFastBpeEncoder(directory: string): Promise<FastBpeLoad> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(directory, 'tokenizer.json'), 'utf8'));
  } catch (err) {
    return { refused: `cannot read ${join(directory, 'tokenizer.json')}: ${(err as Error).message}` };
  }
  let config: Json | null = null;
  try {
    const parsed: unknown = JSON.parse(await readFile(join(directory, 'tokenizer_config.json'), 'utf8'));
    if (isObject(parsed)) config = parsed;
  } catch {
    // Optional, as for the library tokenizer.
  }
  return buildFastBpeEncoder(json, config);
}
