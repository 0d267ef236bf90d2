/**
 * `npx tsx scripts/history-latency.ts [turns]`: the latency a stored turn adds, per history backend.
 *
 * Through a gateway (`smg launch` + mock engine, Qwen3 template), the same prompt two ways:
 *   inline  store:false, the earlier turn sent in `input` (nothing read, nothing written)
 *   stored  store:true + previous_response_id (the chain read, then the turn written before the
 *           answer is released)
 * so the difference is the store's work: one chain read and one transaction of writes. Also the
 * store alone, in process (chain(prev) + putResponse per turn), without HTTP or the engine.
 * PostgreSQL here is PGlite (WASM, in this process, behind the test wire server): a real server
 * on its own cores answers faster, so its figures are an upper bound.
 */
import { performance } from 'node:perf_hooks';
import { MemoryHistoryStore } from '../src/history/memory.js';
import { PostgresHistoryStore } from '../src/history/postgres.js';
import type { HistoryStore } from '../src/history/types.js';
import { silentLogger } from '../src/util/logger.js';
import { MODEL, startHistoryRig } from '../test/e2e/support/history-rig.js';
import { startPgServer } from '../test/e2e/support/pglite-server.js';

const turns = Number(process.argv[2] ?? 100);
const log = (m: string) => process.stderr.write(`history-latency: ${m}\n`);

function stats(ms: number[]): { p50: number; p90: number; mean: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p90: at(0.9), mean: ms.reduce((a, b) => a + b, 0) / ms.length };
}
const fmt = (x: number) => x.toFixed(2).padStart(7);

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function viaGateway(backend: 'memory' | 'postgres', pgUrl?: string) {
  const rig = await startHistoryRig(backend, pgUrl);
  try {
    const first = await rig.openai.responses.create({ model: MODEL, input: 'My name is Ada.' });
    const inline = [
      { role: 'user' as const, content: 'My name is Ada.' },
      { role: 'assistant' as const, content: first.output_text.trim() },
      { role: 'user' as const, content: 'What is my name?' },
    ];
    const runInline = () => rig.openai.responses.create({ model: MODEL, input: inline, store: false });
    const runStored = () => rig.openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: first.id });
    // Warm-up, then the two kinds interleaved so load on the machine hits both alike.
    for (let i = 0; i < 20; i++) await Promise.all([runInline(), runStored()]);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < turns; i++) {
      a.push(...(await timed(1, runInline)));
      b.push(...(await timed(1, runStored)));
    }
    return { inline: stats(a), stored: stats(b) };
  } finally {
    await rig.stop();
  }
}

async function inProcess(store: HistoryStore) {
  await store.start();
  let prev: string | null = null;
  const ms = await timed(turns, async (i) => {
    const id = `resp_bench_${process.pid}_${i}`;
    if (prev) await store.chain(prev, 1000);
    const msg = { id: `msg_bench_${process.pid}_${i}`, type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] };
    const out = { id: `msg_out_${process.pid}_${i}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Your name is Ada.', annotations: [] }] };
    await store.putResponse(
      { id, previousResponseId: prev, conversationId: null, input: [msg], raw: { id, object: 'response', status: 'completed', output: [out] }, model: MODEL, createdAt: 0 },
      [msg, out].map((item) => ({ id: item.id, responseId: id, item, createdAt: 0 })),
    );
    prev = id;
  });
  await store.close();
  return stats(ms);
}

const pg = await startPgServer();
try {
  log(`${turns} turns per backend`);
  const rows: string[] = [];
  for (const backend of ['memory', 'postgres'] as const) {
    log(`gateway on ${backend}…`);
    const g = await viaGateway(backend, pg.url);
    const store = backend === 'memory' ? new MemoryHistoryStore() : new PostgresHistoryStore({ url: pg.url, poolMax: 4, logger: silentLogger() });
    const s = await inProcess(store);
    rows.push(
      `${backend.padEnd(9)} | ${fmt(g.inline.p50)} | ${fmt(g.stored.p50)} | ${fmt(g.stored.p50 - g.inline.p50)} | ${fmt(g.stored.p90 - g.inline.p90)} | ${fmt(s.p50)} | ${fmt(s.p90)}`,
    );
  }
  console.log(`backend   | inline p50 | stored p50 | added p50 | added p90 | store-only p50 | store-only p90   (ms, ${turns} turns)`);
  for (const r of rows) console.log(r);
} finally {
  await pg.close();
}
process.exit(0);
