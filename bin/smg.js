#!/usr/bin/env node
// Entry point: load the TypeScript sources through tsx so `npx smg` works straight after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
