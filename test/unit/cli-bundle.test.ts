/**
 * bin/smg.js runs the CLI from a bundle of the sources built once and cached (bin/bundle.js),
 * unless SMG_PREBUILT_DIR names one (the suite's) or SMG_NO_BUNDLE=1 keeps tsx. Real child
 * processes, the real bin.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function smg(args: string[], env: Record<string, string | undefined>) {
  const base = { ...process.env };
  delete base.SMG_PREBUILT_DIR;
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'smg.js'), ...args], { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8', timeout: 120_000 });
}

describe('the CLI bundle', () => {
  it('is built on the first start, then reused; the CLI answers from it', async () => {
    const { cachedBundle } = (await import(pathToFileURL(join(ROOT, 'bin', 'bundle.js')).href)) as { cachedBundle(): Promise<string | null> };
    const dir = await cachedBundle();
    expect(dir).not.toBeNull();
    expect(existsSync(join(dir!, 'ready'))).toBe(true);
    expect(existsSync(join(dir!, 'worker-entry.mjs'))).toBe(true);
    // The same sources give the same directory: a second call builds nothing.
    expect(await cachedBundle()).toBe(dir);
    const r = smg(['--version'], {});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^smg \d+\.\d+\.\d+/);
    expect(readdirSync(join(ROOT, '.build')).some((n) => n.includes('.tmp-'))).toBe(false);
  }, 120_000);

  it('SMG_NO_BUNDLE=1 runs the sources through tsx', () => {
    const r = smg(['--version'], { SMG_NO_BUNDLE: '1' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^smg \d+\.\d+\.\d+/);
  }, 120_000);
});
