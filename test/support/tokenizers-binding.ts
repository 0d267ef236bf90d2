/**
 * The Rust `tokenizers` binding as the fast-bpe tests use it (the reference for ids and for the
 * pre-tokenizer's split), or null where its prebuilt binary does not load; and the byte-level view
 * of a text that both compare pre-tokens in.
 */
import { createRequire } from 'node:module';
import { byteLevelAlphabet } from '../../src/pipeline/tokenizer/fast-bpe/byte-level.js';

export interface NativeTokenizer {
  encode(s: string, pair: null, o: { addSpecialTokens: boolean }): Promise<{ getIds(): number[] }>;
  getPreTokenizer(): { preTokenizeString(s: string): Array<[string, [number, number]]> };
}

export const binding = (() => {
  try {
    return createRequire(import.meta.url)('tokenizers') as {
      Tokenizer: { fromFile(path: string): NativeTokenizer; fromString(json: string): NativeTokenizer };
    };
  } catch {
    return null;
  }
})();

/** The 256 byte-level characters, by byte value. */
export const ALPHABET = byteLevelAlphabet();
export const toByteLevel = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => ALPHABET[b]).join('');
