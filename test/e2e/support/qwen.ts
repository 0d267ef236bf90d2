/**
 * The Qwen3 tokenizer loaded straight through @huggingface/tokenizers, independent of the
 * gateway's own loader, so tests compute expected token counts without trusting the code under test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { QWEN3_DIR } from './rig.js';

let cached: Tokenizer | null = null;

function tokenizer(): Tokenizer {
  if (!cached) {
    const read = (f: string) => JSON.parse(readFileSync(join(QWEN3_DIR, f), 'utf8')) as object;
    cached = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  }
  return cached;
}

export function encode(text: string): number[] {
  return tokenizer().encode(text, { add_special_tokens: false }).ids;
}

export function decode(ids: number[]): string {
  return tokenizer().decode(ids, { skip_special_tokens: true });
}

/** Qwen3's template for plain user turns, written out by hand (no tools, thinking default). */
export function chatPrompt(...userTurns: string[]): string {
  return userTurns.map((t) => `<|im_start|>user\n${t}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
}

/** The mock's default `--mock-text`. */
export const MOCK_TEXT = 'Hello! This is a scripted reply from the smg mock engine.';
