#!/usr/bin/env node
// Entry point: load the TypeScript sources through tsx so `npx smg` works straight after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
// The composition root: the mock engine (a test double) is plugged in here, not imported by src/cli.
const mockEngine = {
  summary: 'Run a simulated headless vLLM/TokenSpeed engine (no GPU needed)',
  run: async (argv) => (await import('../src/mock-engine/cli.ts')).runMockEngine(argv),
};
await main(process.argv.slice(2), { 'mock-engine': mockEngine });
