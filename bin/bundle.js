// The CLI's sources as one esbuild bundle, built on the first start after they change and reused
// by every later start (and every process smg starts: engines, mock engines, prompt threads).
//
// Why not tsx alone: tsx transforms with esbuild's keepNames, which wraps every function
// expression in `__name(fn, "name")`, an Object.defineProperty on each closure as it is made. The
// gateway makes dozens per request; measured side by side (scripts/pair-ab.ts, short requests at
// C=64) the same commit served from this bundle costs 0.74x the CPU per request of tsx, and a
// bundle built with keepNames costs the same as tsx: the names are the difference.
//
// The bundle is the one the test suite runs every process from (test/support/prebuilt-cli.ts):
// same entry points, same layout (ROOT/.build/<dir>/, so `../../package.json` and the like
// resolve as from src/<dir>/), plus source maps so stack traces name the .ts files as under tsx.
// Anything that stops it (no esbuild, a read-only install, a build error) leaves the caller on
// tsx, as before. SMG_NO_BUNDLE=1 skips it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, '.build');

/** What the bundle is built from: every source file's path, size and mtime, and the Node version. */
function sourceKey() {
  const h = createHash('sha256');
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        h.update(`${p}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  walk(join(ROOT, 'src'));
  for (const f of ['package.json', 'tsconfig.json']) {
    const p = join(ROOT, f);
    if (existsSync(p)) h.update(`${f}\0${statSync(p).mtimeMs}\n`);
  }
  h.update(process.version);
  return h.digest('hex').slice(0, 16);
}

/**
 * Bundles the CLI's entry points into `outdir` (ROOT/.build/<dir>: modules find the package's own
 * files as `new URL('../../bin/…', import.meta.url)`, as from src/<dir>/). Shared with the test
 * suite's per-run build (test/support/prebuilt-cli.ts).
 */
export async function buildCli(outdir, { sourcemap = false, logLevel = 'warning' } = {}) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: {
      main: join(ROOT, 'src/cli/main.ts'),
      'mock-engine': join(ROOT, 'src/mock-engine/cli.ts'),
      'prompt-worker': join(ROOT, 'src/pipeline/prompt-pool/prompt-worker.ts'),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap,
    logLevel,
  });
  // The prompt pool starts its threads from `./worker-entry.mjs` beside the module that holds it
  // (in the sources, a file that registers tsx first); in the bundle every chunk sits in `outdir`.
  writeFileSync(join(outdir, 'worker-entry.mjs'), "await import('./prompt-worker.js');\n");
}

/** The directory of a ready bundle, or null (the caller then loads the sources through tsx). */
export async function cachedBundle() {
  try {
    const dir = join(BUILD, `cli-${sourceKey()}`);
    if (existsSync(join(dir, 'ready'))) return dir;
    mkdirSync(BUILD, { recursive: true });
    // Built beside, then renamed into place: a process starting meanwhile never sees half a bundle.
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    await buildCli(tmp, { sourcemap: true, logLevel: 'silent' });
    writeFileSync(join(tmp, 'ready'), '');
    try {
      renameSync(tmp, dir);
    } catch {
      // Another process put the same bundle in place first: use that one.
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(join(dir, 'ready'))) return null;
    }
    return dir;
  } catch {
    return null;
  }
}
