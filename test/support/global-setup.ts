/**
 * vitest globalSetup: fetch the big tokenizer fixtures once, before any test file runs, so files
 * that use them never race each other for the download (and a cold cache costs ~10 s once).
 */
import { TOKENIZER_FIXTURES, type TokenizerFixture, ensureTokenizerFixture, llama31ModelDir } from './tokenizer-fixtures.js';

export default function setup(): void {
  for (const name of Object.keys(TOKENIZER_FIXTURES) as TokenizerFixture[]) ensureTokenizerFixture(name);
  llama31ModelDir();
}
