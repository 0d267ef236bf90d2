/**
 * The Rust `tokenizers` binding (huggingface/tokenizers, bindings/node; 0.23.2 ships prebuilt
 * `.node` files for 13 targets inside the npm package, no install script), loaded only inside
 * prompt worker threads. On Qwen3 it encodes about twice as fast as the pure-JS library and its
 * encodes run on the libuv pool, so one thread serves several prompts at once and a long prompt
 * cut into pieces uses every core (scripts/tokenize-bench.ts has the numbers). Its `getIds()`
 * builds the JS array element by element (~0.1 µs per id), which is why it runs here and not on
 * the event loop.
 *
 * Optional at run time: a platform without a prebuilt binary, or a tokenizer the binding reads
 * differently (the worker checks parity probes first), leaves the worker on the pure-JS library.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The part of the binding's API used here (index.d.ts of tokenizers 0.23.2). */
interface NativeEncoding {
  getIds(): number[];
}
interface NativeTokenizer {
  encode(sentence: string, pair: null, options: { addSpecialTokens: boolean }): Promise<NativeEncoding>;
}
interface NativeBinding {
  Tokenizer: { fromFile(path: string): NativeTokenizer };
}

export type TextEncoder = (text: string) => Promise<number[]> | number[];

/**
 * Texts this long are cut into pieces that the binding encodes at once: its encodes run on the
 * libuv pool (4 threads by default), so a long prompt uses every core instead of one. Pieces
 * shorter than PIECE_MIN_CHARS cost more in task overhead than they save.
 */
const PIECE_MIN_CHARS = 2048;
const MAX_PIECES = 4;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Cuts `text` right after occurrences of the cut tokens (tokenizer/cut-tokens.ts: the ids of the
 * pieces, concatenated, are the ids of the whole) into at most MAX_PIECES pieces of similar size.
 */
export function cutText(text: string, cuts: RegExp | null): string[] {
  const n = Math.min(MAX_PIECES, Math.floor(text.length / PIECE_MIN_CHARS));
  if (cuts === null || n < 2) return [text];
  const target = Math.ceil(text.length / n);
  const pieces: string[] = [];
  let from = 0;
  while (pieces.length < n - 1) {
    cuts.lastIndex = from + target;
    const m = cuts.exec(text);
    if (m === null) break;
    const at = m.index + m[0].length;
    if (at >= text.length) break;
    pieces.push(text.slice(from, at));
    from = at;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** One global regex matching any cut token, or null when there is none. */
export function cutPattern(cutTokens: readonly string[]): RegExp | null {
  return cutTokens.length === 0 ? null : new RegExp(cutTokens.map(escape).join('|'), 'g');
}

/** An encoder over the binding, or the reason there is none. */
export function loadNativeEncoder(directory: string, cutTokens: readonly string[] = []): TextEncoder | string {
  let binding: NativeBinding;
  try {
    binding = createRequire(import.meta.url)('tokenizers') as NativeBinding;
  } catch (err) {
    return `the tokenizers binding did not load: ${(err as Error).message}`;
  }
  let tok: NativeTokenizer;
  try {
    tok = binding.Tokenizer.fromFile(join(directory, 'tokenizer.json'));
  } catch (err) {
    return `the tokenizers binding cannot read ${join(directory, 'tokenizer.json')}: ${(err as Error).message}`;
  }
  const cuts = cutPattern(cutTokens);
  // add_special_tokens=false as for every prompt.
  const options = { addSpecialTokens: false };
  return async (text) => {
    if (text === '') return [];
    const pieces = cutText(text, cuts);
    if (pieces.length === 1) return (await tok.encode(text, null, options)).getIds();
    const encodings = await Promise.all(pieces.map((p) => tok.encode(p, null, options)));
    return ([] as number[]).concat(...encodings.map((e) => e.getIds()));
  };
}
