/**
 * Two gateway trees measured side by side in one run, interleaved: each gets its own `smg launch` +
 * zero-delay mock engine, and short windows of the same load alternate between them (A, B, A, B…),
 * so drift on a shared box (neighbours, frequency) lands on both alike. A sequential A-then-B run
 * on the 2-core box moved ±20–40 % between minutes; the pair's ratio moves much less.
 *
 *   npx tsx scripts/pair-ab.ts DIR_A DIR_B [--kind short|stream] [--c 64] [--windows 8] [--window-secs 3]
 *                              [--token-delay-ms 0]   (the engines' step time: >0 measures below capacity)
 *
 * --together instead alternates A alone at C with A and B together at C/2 each, and prints the tokens/s
 * of both: with DIR_A = DIR_B it bounds what serving on more cores could give on this box (two
 * whole gateway+engine stacks are more parallel than gateway threads behind one engine client).
 *
 * DIR_A and DIR_B are checkouts of this repository (e.g. a `git worktree` of the base commit with
 * node_modules linked); each is started from its own bin/smg.js. Prints, per tree, the median over
 * windows of gateway CPU µs per request and per token and of TTFT p50, and B ÷ A.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { runPhase, warmUp } from './bench/phase.js';
import { percentile } from './bench/stats.js';
import { stopAll } from './bench/procs.js';
import type { TargetHandle } from './bench/targets/target.js';
import { buildWorkloads, type Kind } from './bench/workloads.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kind: { type: 'string', default: 'short' },
    c: { type: 'string', default: '64' },
    windows: { type: 'string', default: '8' },
    'window-secs': { type: 'string', default: '3' },
    'warmup-secs': { type: 'string', default: '8' },
    together: { type: 'boolean', default: false },
    'token-delay-ms': { type: 'string', default: '0' },
  },
});
if (positionals.length !== 2) {
  process.stderr.write('usage: npx tsx scripts/pair-ab.ts DIR_A DIR_B [--kind short|stream] [--c 64] [--windows 8] [--window-secs 3] [--token-delay-ms 0]\n');
  process.exit(2);
}
const kind = values.kind as Kind;
const c = Number(values.c);
// Only the phases pair-ab drives: no ~131k-token long prompt is calibrated or sent to the gateways.
const opts = parseBenchArgs(['--concurrency', String(c), '--token-delay-ms', String(values['token-delay-ms']), '--phases', 'short,streaming'])!;
const w = await buildWorkloads(opts);
const dir = await mkdtemp(join(tmpdir(), 'smgpair-'));

interface Tree {
  name: string;
  handle: TargetHandle;
  cpuUsPerReq: number[];
  cpuUsPerTok: number[];
  ttftP50: number[];
}

const median = (xs: readonly number[]) => percentile([...xs].sort((a, b) => a - b), 50);

const trees: Tree[] = [];
try {
  for (const [i, d] of positionals.entries()) {
    const mod = (await import(pathToFileURL(resolve(d, 'scripts/bench/targets/gateway.ts')).href)) as typeof import('./bench/targets/gateway.js');
    await mkdir(join(dir, String(i)));
    const handle = await mod.startGateway(opts, join(dir, String(i)), w, false);
    trees.push({ name: `${'AB'[i]} ${d}`, handle, cpuUsPerReq: [], cpuUsPerTok: [], ttftP50: [] });
  }
  const warmEnd = performance.now() + Number(values['warmup-secs']) * 1000;
  while (performance.now() < warmEnd) for (const t of trees) await warmUp(c, 4 * c, t.handle.fn(kind)!);
  if (values.together) await together(trees, kind, c, Number(values.windows), Number(values['window-secs']));
  else await interleaved();
} finally {
  await closeAll();
}

async function interleaved(): Promise<void> {
  for (let k = 0; k < Number(values.windows); k++) {
    for (const t of k % 2 === 0 ? trees : [...trees].reverse()) {
      const r = await runPhase({
        label: t.name,
        concurrency: c,
        requests: c,
        minMs: Number(values['window-secs']) * 1000,
        timeCapMs: 60_000,
        run: t.handle.fn(kind)!,
        cpu: t.handle.cpu.filter((p) => p.name === 'server'),
      });
      await t.handle.alive();
      const cpu = r.cpu.server;
      t.cpuUsPerReq.push(cpu.usPerRequest);
      t.cpuUsPerTok.push(cpu.usPerToken);
      t.ttftP50.push(r.ttft.p50 ?? Number.NaN);
      process.stderr.write(`window ${k + 1} ${t.name}: ${cpu.usPerRequest.toFixed(0)} µs/req, ${cpu.usPerToken.toFixed(2)} µs/tok, TTFT p50 ${(r.ttft.p50 ?? 0).toFixed(2)} ms, ${r.ok} ok\n`);
    }
  }
  const [a, b] = trees;
  console.log(`pair A/B, ${kind} requests at C=${c}, ${values.windows} interleaved windows of ${values['window-secs']} s (medians)`);
  for (const t of trees) {
    console.log(`  ${t.name}: ${median(t.cpuUsPerReq).toFixed(0)} µs/req, ${median(t.cpuUsPerTok).toFixed(2)} µs/tok, TTFT p50 ${median(t.ttftP50).toFixed(2)} ms`);
  }
  // Each round's own ratio (its A and B windows ran back to back): the spread says how far to trust it.
  const ratios = a.cpuUsPerReq.map((x, i) => b.cpuUsPerReq[i] / x).sort((p, q) => p - q);
  console.log(
    `  B ÷ A: CPU/req ${(median(b.cpuUsPerReq) / median(a.cpuUsPerReq)).toFixed(3)}×, TTFT ${(median(b.ttftP50) / median(a.ttftP50)).toFixed(3)}×; ` +
      `per-round CPU ratio median ${median(ratios).toFixed(3)}× (min ${ratios[0].toFixed(3)}, max ${ratios[ratios.length - 1].toFixed(3)})`,
  );
}

async function closeAll(): Promise<void> {
  for (const t of trees.splice(0)) await t.handle.close();
  await stopAll(5000);
  await rm(dir, { recursive: true, force: true });
}

async function together(ts: Tree[], k: Kind, conc: number, windows: number, secs: number): Promise<void> {
  const window = (t: Tree, cc: number) =>
    runPhase({ label: t.name, concurrency: cc, requests: cc, minMs: secs * 1000, timeCapMs: 60_000, run: t.handle.fn(k)!, cpu: [] });
  const alone: number[] = [];
  const both: number[] = [];
  for (let i = 0; i < windows; i++) {
    const a = await window(ts[0], conc);
    alone.push(a.tokensPerSec);
    const [x, y] = await Promise.all([window(ts[0], conc / 2), window(ts[1], conc / 2)]);
    both.push(x.tokensPerSec + y.tokensPerSec);
    process.stderr.write(`window ${i + 1}: one gateway ${a.tokensPerSec.toFixed(0)} tok/s, two ${(x.tokensPerSec + y.tokensPerSec).toFixed(0)} tok/s\n`);
  }
  console.log(`${k} requests, C=${conc} in all, ${windows} windows of ${secs} s each way (medians)`);
  console.log(`  one gateway: ${median(alone).toFixed(0)} tok/s; two gateways (C/2 each): ${median(both).toFixed(0)} tok/s; two ÷ one ${(median(both) / median(alone)).toFixed(2)}×`);
}
setTimeout(() => process.exit(), 200).unref();
