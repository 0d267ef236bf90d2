/**
 * The suite's one build of the CLI. Every `smg` process a test starts (bin/smg.js, bin/mock-python)
 * otherwise loads ~300 TypeScript modules through tsx's loader hooks, which costs about a second of
 * CPU per process; the e2e files start well over a hundred of them, so on a 2-core machine that
 * alone was minutes of the run. globalSetup bundles the same sources with esbuild (the transformer
 * tsx uses too) once per run and points the bins at it through SMG_PREBUILT_DIR.
 *
 * The bundle must sit two directories below the project root: modules find the package's own
 * files as `new URL('../../bin/…', import.meta.url)` relative to where they live in src/.
 */
import { readdirSync, rmSync } from 'node:fs';
import { buildCli } from '../../bin/bundle.js';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Bundles of earlier runs that were killed before their teardown. */
function removeAbandoned(buildDir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(buildDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^smg-(\d+)$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(buildDir, name), { recursive: true, force: true });
    }
  }
}

export async function buildPrebuiltCli(): Promise<{ dir: string; remove: () => void }> {
  removeAbandoned(join(ROOT, '.build'));
  const dir = join(ROOT, '.build', `smg-${process.pid}`);
  await buildCli(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
