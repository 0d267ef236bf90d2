/**
 * Deterministic "sampling": the token a request produces at each output position depends only on
 * the mode, the prompt and the seed, so tests can predict every id.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import type { GenMode } from './mock-flags.js';
import type { MockRequest } from './request.js';
import { loadReplyRules } from './replies.js';

/** vLLM treats temperature below this as greedy, and greedy sampling ignores the seed. */
const GREEDY_EPS = 1e-5;

export interface Generator {
  readonly mode: GenMode;
  tokenAt(req: MockRequest, index: number): number;
}

/**
 * Seed → a shift. Count mode moves by 256 ids per step of (seed mod 97), which keeps ids below
 * ~25k so a real tokenizer on the gateway side can still decode them; script/echo rotate.
 */
export function seedShift(req: MockRequest): number {
  const { seed, temperature } = req.sampling;
  if (seed === null || seed < 0 || temperature < GREEDY_EPS) return 0;
  return seed % 97;
}

export function countGenerator(base: number): Generator {
  return { mode: 'count', tokenAt: (req, i) => base + 256 * seedShift(req) + i };
}

/**
 * Emit `seq` (the prompt for echo, the scripted text for script) and then the request's EOS id
 * when it has one; the cycle repeats for requests that keep going (ignore_eos, no EOS id).
 */
function cyclic(mode: GenMode, seqOf: (req: MockRequest) => number[], fallback: Generator): Generator {
  return {
    mode,
    tokenAt(req, i) {
      const seq = seqOf(req);
      const eos = req.sampling.eosTokenId;
      const len = seq.length + (eos === null ? 0 : 1);
      if (seq.length === 0) return fallback.tokenAt(req, i);
      const pos = (i + seedShift(req)) % len;
      return pos < seq.length ? seq[pos] : (eos as number);
    },
  };
}

export function echoGenerator(base: number): Generator {
  return cyclic('echo', (req) => req.prompt, countGenerator(base));
}

export function scriptGenerator(ids: number[], base: number): Generator {
  return cyclic('script', () => ids, countGenerator(base));
}

/** The model argument names a local directory with a tokenizer.json (an HF snapshot). */
export function tokenizerDir(model: string): string | null {
  try {
    if (statSync(model).isDirectory() && existsSync(join(model, 'tokenizer.json'))) return model;
  } catch {
    // not a local path: a hub id such as Qwen/Qwen3-0.6B
  }
  return null;
}

export function loadMockTokenizer(dir: string): Tokenizer {
  const tokJson = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as object;
  const cfgPath = join(dir, 'tokenizer_config.json');
  const cfg = existsSync(cfgPath) ? (JSON.parse(readFileSync(cfgPath, 'utf8')) as object) : {};
  return new Tokenizer(tokJson, cfg);
}

/**
 * Encodes a script the way a frontend would tokenize a completion: no special tokens added, but
 * special-token text in the script (`<tool_call>`, `<|python_tag|>`) becomes that token's id.
 */
export function encodeScript(dir: string, text: string, tok: Tokenizer = loadMockTokenizer(dir)): number[] {
  return tok.encode(text, { add_special_tokens: false }).ids;
}

export interface GeneratorChoice {
  generator: Generator;
  /** Human-readable note for the startup log line. */
  detail: string;
}

export function chooseGenerator(opts: {
  mode: GenMode | null;
  model: string;
  text: string;
  countBase: number;
  /** `--mock-replies` file, or null. */
  replies?: string | null;
}): GeneratorChoice {
  const dir = tokenizerDir(opts.model);
  const mode = opts.mode ?? (dir ? 'script' : 'count');
  if (opts.replies && mode !== 'script') throw new Error('--mock-replies needs script mode (a local model directory with tokenizer.json)');
  if (mode === 'count') return { generator: countGenerator(opts.countBase), detail: `count from ${opts.countBase}` };
  if (mode === 'echo') return { generator: echoGenerator(opts.countBase), detail: 'echo the prompt' };
  if (!dir) throw new Error(`--mock-mode script needs <model> to be a local directory with tokenizer.json, got '${opts.model}'`);
  const tok = loadMockTokenizer(dir);
  const ids = encodeScript(dir, opts.text, tok);
  if (opts.replies) {
    const rules = loadReplyRules(opts.replies).map((r) => ({ when: r.when, ids: encodeScript(dir, r.reply, tok) }));
    const prompts = new WeakMap<MockRequest, number[]>();
    const seqOf = (req: MockRequest) => {
      let seq = prompts.get(req);
      if (!seq) {
        const prompt = tok.decode(req.prompt, { skip_special_tokens: false });
        seq = rules.find((r) => prompt.includes(r.when))?.ids ?? ids;
        prompts.set(req, seq);
      }
      return seq;
    };
    return {
      generator: cyclic('script', seqOf, countGenerator(opts.countBase)),
      detail: `${rules.length} scripted replies from ${opts.replies}, else a script of ${ids.length} tokens`,
    };
  }
  return { generator: scriptGenerator(ids, opts.countBase), detail: `script of ${ids.length} tokens from ${dir}` };
}
