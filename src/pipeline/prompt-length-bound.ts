/**
 * Refusing a prompt that cannot fit the context before it is encoded. Encoding is the costly part
 * of a huge prompt (a 30 MB chat body took the gateway from 298 MB to 1.04 GB of RSS before it was
 * refused for its length): a cheap lower bound on its token count, from its UTF-8 length, settles
 * the clear cases without it.
 *
 * The bound: one token stands for at most `maxTokenBytes` bytes of text (the longest piece in the
 * vocabulary, added tokens included: 128 for Qwen3, whose longest token is 128 spaces), so a text
 * of B bytes needs at least B / maxTokenBytes tokens. A normalizer may first shrink the text: NFC
 * composes at most 3 bytes into 1 (a Hangul L+V+T jamo triple, 9 bytes, becomes one 3-byte
 * syllable), so when the tokenizer's encoding does not round-trip a composable probe the bytes are
 * divided by 3 more. The bound is exact arithmetic, never an estimate: a prompt it refuses would
 * have been refused after encoding too, with the same error kind.
 */
import { PipelineError } from './errors.js';
import type { LoadedTokenizer } from './tokenizer/index.js';
import type { ByteLevelVocab } from './tokenizer/byte-level.js';

export type BoundTokenizer = Pick<LoadedTokenizer, 'encode' | 'decode' | 'vocabSize'> & { byteLevelVocab?(): ByteLevelVocab | null };

/** The tokenizer that will encode a prompt and the largest context it has to fit. */
export interface PromptLimit {
  tokenizer: BoundTokenizer;
  maxModelLen: number | null;
}

interface BytesPerToken {
  /** UTF-8 bytes of text one token can stand for, normalizer shrinkage included. */
  readonly maxBytes: number;
}

const cache = new WeakMap<object, BytesPerToken>();

/** Decomposed é and a conjoining-jamo Hangul syllable: NFC/NFKC compose both. */
const COMPOSABLE = 'e\u0301\u1100\u1161\u11a8';
/** The most a composing normalizer shrinks UTF-8 (9 bytes of jamo → 3). */
const NORMALIZER_SHRINK = 3;

function longestPiece(tok: BoundTokenizer): number {
  const vocab = tok.byteLevelVocab?.() ?? null;
  let max = 1;
  if (vocab) {
    for (let i = 0; i < vocab.size; i++) {
      const n = vocab.start[i + 1] - vocab.start[i];
      if (n > max) max = n;
      const t = vocab.text[i];
      if (t && t.length * 3 > max) max = Math.max(max, Buffer.byteLength(t));
    }
    return max;
  }
  for (let id = 0; id < tok.vocabSize; id++) {
    const n = Buffer.byteLength(tok.decode([id], false));
    if (n > max) max = n;
  }
  return max;
}

function bytesPerToken(tok: BoundTokenizer): BytesPerToken {
  let v = cache.get(tok);
  if (!v) {
    let shrink = 1;
    try {
      if (tok.decode(tok.encode(COMPOSABLE, false), false) !== COMPOSABLE) shrink = NORMALIZER_SHRINK;
    } catch {
      shrink = NORMALIZER_SHRINK;
    }
    v = { maxBytes: longestPiece(tok) * shrink };
    cache.set(tok, v);
  }
  return v;
}

/**
 * Throws the context-length 400 when `text` surely needs `maxModelLen` tokens or more; returns
 * otherwise (the exact count after encoding decides the rest). Texts shorter than the context in
 * bytes never reach the vocabulary scan.
 */
export function refuseSurelyTooLong(tok: BoundTokenizer, text: string, maxModelLen: number | null | undefined): void {
  if (!maxModelLen || text.length < maxModelLen) return;
  const bytes = Buffer.byteLength(text);
  const atLeast = Math.floor(bytes / bytesPerToken(tok).maxBytes);
  if (atLeast < maxModelLen) return;
  throw new PipelineError(
    400,
    'context_length_exceeded',
    `This model's maximum context length is ${maxModelLen} tokens. However, your request has at least ${atLeast} input tokens (${bytes} bytes of prompt text). Please reduce the length of the input messages.`,
    true,
  );
}

/**
 * Computes the bound's vocabulary scan now (at model load) instead of on the first long prompt,
 * which held the event loop 10-15 ms for it (a 150k vocabulary; profile: longestPiece).
 */
export function primePromptBound(tok: BoundTokenizer): void {
  bytesPerToken(tok);
}

/**
 * Whether a text of `chars` UTF-16 units (3 UTF-8 bytes each at most) could be refused by
 * refuseSurelyTooLong: only such prompts are worth rendering on the event loop to check.
 */
export function mayBeSurelyTooLong(tok: BoundTokenizer, chars: number, maxModelLen: number | null | undefined): boolean {
  if (!maxModelLen || chars < maxModelLen) return false;
  return (chars * 3) / bytesPerToken(tok).maxBytes >= maxModelLen;
}
