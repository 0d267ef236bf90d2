/**
 * vitest globalSetup: fetch the big tokenizer fixtures once, before any test file runs, so files
 * that use them never race each other for the download (and a cold cache costs ~10 s once); and
 * build the CLI once for every process the tests start (prebuilt-cli.ts).
 */
import { buildPrebuiltCli } from './prebuilt-cli.js';
import { TOKENIZER_FIXTURES, type TokenizerFixture, ensureTokenizerFixture, llama31ModelDir } from './tokenizer-fixtures.js';

export default async function setup(): Promise<() => void> {
  for (const name of Object.keys(TOKENIZER_FIXTURES) as TokenizerFixture[]) ensureTokenizerFixture(name);
  llama31ModelDir();
  // SMG_TEST_TSX=1 starts every process as `npx smg` does (bin/smg.js: its cached bundle of the
  // sources, or tsx with SMG_NO_BUNDLE=1).
  if (process.env.SMG_TEST_TSX === '1') return () => {};
  const prebuilt = await buildPrebuiltCli();
  // Inherited by the test workers and by every process they start.
  process.env.SMG_PREBUILT_DIR = prebuilt.dir;
  return prebuilt.remove;
}
