#!/usr/bin/env node
// Entry point: load the TypeScript sources through tsx so `npx smg` works straight after `npm install`.
// SMG_PREBUILT_DIR names a bundle of these same sources (the test suite builds one per run, see
// test/support/prebuilt-cli.ts) and skips tsx's per-module loader, about a second of CPU per start.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Otherwise a bundle of the sources built once and cached (bin/bundle.js: 0.74x the CPU per
// request of tsx's per-closure names); SMG_NO_BUNDLE=1, or anything that stops it, keeps tsx.
const prebuilt =
  process.env.SMG_PREBUILT_DIR ?? (process.env.SMG_NO_BUNDLE === '1' ? undefined : ((await (await import('./bundle.js')).cachedBundle()) ?? undefined));
// Stack traces name the .ts sources, as under tsx (the bundle carries source maps).
if (prebuilt && !process.env.SMG_PREBUILT_DIR) process.setSourceMapsEnabled(true);
const load = async (bundled, source) => {
  if (prebuilt) return import(pathToFileURL(join(prebuilt, bundled)).href);
  return import(source);
};
if (!prebuilt) (await import('tsx/esm/api')).register();
const { main } = await load('main.js', '../src/cli/main.ts');
// The composition root: the mock engine (a test double) is plugged in here, not imported by src/cli.
const mockEngine = {
  summary: 'Run a simulated headless vLLM/TokenSpeed engine (no GPU needed)',
  run: async (argv) => (await load('mock-engine.js', '../src/mock-engine/cli.ts')).runMockEngine(argv),
};
await main(process.argv.slice(2), { 'mock-engine': mockEngine });
