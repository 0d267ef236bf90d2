/**
 * The Rust `tokenizers` binding (huggingface/tokenizers, bindings/node), loaded only inside prompt
 * worker threads. Optional at run time: a platform without a prebuilt binary, or a tokenizer the
 * binding reads differently, leaves the worker on the pure-JS library.
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

/** An encoder over the binding, or the reason there is none. */
export function loadNativeEncoder(directory: string): TextEncoder | string {
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
  // The binding's encode runs on the libuv pool; add_special_tokens=false as for every prompt.
  return async (text) => (text === '' ? [] : (await tok.encode(text, null, { addSpecialTokens: false })).getIds());
}
