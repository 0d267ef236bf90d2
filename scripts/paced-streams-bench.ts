/**
 * Many slow streams, side by side: N keep-alive streams that each get one token per engine step
 * (a mock engine at --step-ms), against gateway trees and a bare node:http ceiling that writes one
 * SSE frame per stream per step (ceiling-server.ts --mode step --step-ms S). Issue 30's paced regime.
 *
 *   npx tsx scripts/paced-streams-bench.ts [DIR...] [--n 1000] [--step-ms 50] [--rounds 1]
 *        [--window-secs 10] [--ramp-secs 2] [--idle-secs 30] [--no-ceiling] [--profile DIR]
 *
 * DIRs are checkouts of this repository (default: this one), each started from its own bin/smg.js
 * with its own mock engine (this checkout's engine for all, so the engine is the same). Targets
 * run one after another in each round (A, B, ceiling; the next round reversed), so drift lands on
 * all of them. Per target and round:
 *   - RSS before: after a short warm-up and --pre-idle-secs idle, just before the streams open.
 *   - N streams open over --ramp-secs; each lasts ramp + settle + window + margin tokens' worth.
 *   - In the window (all N open, steady): server CPU (/proc/<pid>/stat) per token received by
 *     the client, cores used, loop delay p99 and utilization (loop-probe.mjs preload), per-arrival
 *     gap p99 (the whole gap between two token arrivals of a stream), RSS per open stream
 *     ((mean RSS in the window − RSS before) ÷ N), and the bench client's own CPU.
 *   - TTFT p50 of the N streams (they arrive over the ramp).
 *   - The same three RSS figures right after a forced full GC (paced-gc-probe.mjs preload, measurement
 *     only): what is retained, without the garbage that plain RSS carries until a collection.
 *   - RSS after --idle-secs with nothing open (read while the next target runs: an idle
 *     process's memory does not depend on its neighbours), and its excess over the before figure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { createAgent, httpRequestFn } from './bench/http-client.js';
import { ChildLoopProbe, LOOP_PROBE_FILE, type LoopStats } from './bench/loop-stats.js';
import type { GapSink } from './bench/arrivals.js';
import { Child, freePort, installSignalHandlers, procCpuSeconds, procCpuSecondsPrecise, rssBytes, selfCpuSeconds, sleep, stopAll, waitReady } from './bench/procs.js';
import { captureFrames } from './bench/sse-frames.js';
import { Samples, percentile, summarize } from './bench/stats.js';
import { engineArgs, workerUrl } from './bench/targets/engine-args.js';
import { buildWorkloads } from './bench/workloads.js';
import type http from 'node:http';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';

/** CPU seconds per thread name (comm) of a process, from /proc/<pid>/task/<tid>/stat. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '#');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(comm, (out.get(comm) ?? 0) + (Number(rest[11]) + Number(rest[12])) / 100);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    n: { type: 'string', default: '1000' },
    'step-ms': { type: 'string', default: '50' },
    rounds: { type: 'string', default: '1' },
    'window-secs': { type: 'string', default: '10' },
    'ramp-secs': { type: 'string', default: '2' },
    'settle-secs': { type: 'string', default: '2' },
    'idle-secs': { type: 'string', default: '30' },
    'pre-idle-secs': { type: 'string', default: '8' },
    'no-ceiling': { type: 'boolean', default: false },
    /** Also run a ceiling that frames its chunks itself (ceiling-server.ts --framing self): an experiment. */
    'self-framed-ceiling': { type: 'boolean', default: false },
    /** Also run a ceiling that corks each write as the gateway does (--framing corked): an experiment. */
    'corked-ceiling': { type: 'boolean', default: false },
    profile: { type: 'string' },
    /** `perf record` (CPU time, kernel included, all threads) of each target's window into this directory. */
    perf: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    /** Heap snapshots of the first gateway before and with the N streams open, into this directory. */
    snapshots: { type: 'string' },
  },
});

const N = Number(values.n);
const STEP_MS = Number(values['step-ms']);
const WINDOW_MS = Number(values['window-secs']) * 1000;
const RAMP_MS = Number(values['ramp-secs']) * 1000;
const SETTLE_MS = Number(values['settle-secs']) * 1000;
const IDLE_MS = Number(values['idle-secs']) * 1000;
// Every stream outlives the window by ~2 s of tokens, so the window sees all N open.
const MAX_TOKENS = Math.ceil((RAMP_MS + SETTLE_MS + WINDOW_MS + 2000) / STEP_MS);
const GC_PROBE_FILE = fileURLToPath(new URL('./paced-gc-probe.mjs', import.meta.url));
const GC_MARK = '@@smg-bench-gc ';
interface GcFigures {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}
/** A full GC in the child (paced-gc-probe.mjs), then its memory figures; null when it does not answer. */
class GcProbe {
  private waiting: ((f: GcFigures) => void)[] = [];
  constructor(private readonly child: Child) {
    child.onLine((line) => {
      if (!line.startsWith(GC_MARK)) return false;
      this.waiting.shift()?.(JSON.parse(line.slice(GC_MARK.length)) as GcFigures);
      return true;
    });
  }
  async ask(): Promise<GcFigures | null> {
    const got = new Promise<GcFigures>((r) => this.waiting.push(r));
    this.child.child.kill('SIGWINCH');
    const r = await Promise.race([got, sleep(10_000).then(() => null)]);
    if (r === null) this.waiting = [];
    return r;
  }
}
const trees = (positionals.length > 0 ? positionals : [fileURLToPath(new URL('..', import.meta.url))]).map((d) => resolve(d));

const opts = parseBenchArgs(['--concurrency', String(N), '--max-tokens', String(MAX_TOKENS), '--token-delay-ms', String(STEP_MS)])!;
const w = await buildWorkloads(opts);
// Inherited by the children (paced-gc-probe.mjs reads it).
if (values.snapshots) process.env.SMG_BENCH_SNAPSHOT_DIR = resolve(values.snapshots);
if (values.perf) mkdirSync(resolve(values.perf), { recursive: true });
const dir = await mkdtemp(join(tmpdir(), 'smgpaced-'));
const log = (m: string) => process.stderr.write(`paced: ${m}\n`);

interface Target {
  name: string;
  pid: number;
  port: number;
  model: string;
  loop: ChildLoopProbe;
  gc: GcProbe;
  agent: http.Agent;
  children: Child[];
  results: RoundResult[];
}

interface RoundResult {
  ok: number;
  failed: number;
  errors: string[];
  tokens: number;
  cpuUsPerTok: number;
  /** The same from schedstat (ns on a CPU, not 10 ms ticks). */
  preciseUsPerTok: number;
  cores: number;
  engineCores: number;
  clientCores: number;
  loop: LoopStats | null;
  gapP99: number;
  gapP50: number;
  ttftP50: number;
  rssBeforeMb: number;
  rssPerStreamKb: number;
  rssAfterIdleMb: number;
  /** After a forced full GC (paced-gc-probe.mjs): retained, not garbage waiting for a collection. */
  gcRssBeforeMb: number;
  gcRssPerStreamKb: number;
  gcHeapPerStreamKb: number;
  gcRssAfterIdleMb: number;
}

const targets: Target[] = [];
const pendingIdle: Promise<void>[] = [];

installSignalHandlers(async () => {
  await stopAll(3000);
  await rm(dir, { recursive: true, force: true });
});

try {
  for (const [i, tree] of trees.entries()) targets.push(await startGateway(tree, `${'ABCDEFG'[i]} ${tree}`, i));
  if (!values['no-ceiling']) targets.push(await startCeiling(targets[0]));
  if (values['corked-ceiling']) targets.push(await startCeiling(targets[0], 'corked'));
  if (values['self-framed-ceiling']) targets.push(await startCeiling(targets[0], 'self'));
  for (const t of targets) await warm(t);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const t of r % 2 === 0 ? targets : [...targets].reverse()) await measure(t, r);
  }
  await Promise.all(pendingIdle);
  report();
} finally {
  for (const t of targets) t.agent.destroy();
  await stopAll(15_000);
  await rm(dir, { recursive: true, force: true });
}

async function startGateway(tree: string, name: string, i: number): Promise<Target> {
  const url = await workerUrl(dir, `paced-e${i}`);
  const [port, mport] = [await freePort(), await freePort()];
  const nodeFlags = ['--import', LOOP_PROBE_FILE, '--expose-gc', '--import', GC_PROBE_FILE];
  if (values.profile) nodeFlags.push('--cpu-prof', '--cpu-prof-dir', join(resolve(values.profile), String(i)));
  if (values.perf) nodeFlags.push('--perf-basic-prof');
  const gateway = new Child(
    `gateway ${i}`,
    [
      'launch', '--worker-urls', url, '--backend', 'vllm', '--model-path', opts.model,
      '--host', '127.0.0.1', '--port', String(port),
      '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
      '--log-level', 'warn', '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '5',
      '--request-timeout-secs', '300',
    ],
    { nodeFlags, verbose: values.verbose, script: join(tree, 'bin/smg.js') },
  );
  const engine = new Child(`engine ${i}`, engineArgs(opts, url, w.promptTokenIds.length, w.longPromptTokens), { verbose: values.verbose });
  await waitReady(`http://127.0.0.1:${port}`, gateway, 60_000, [engine]);
  const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: { id: string }[] };
  log(`${name}: gateway pid ${gateway.pid} on ${port}, engine pid ${engine.pid}`);
  return { name, pid: gateway.pid, port, model: models.data[0].id, loop: new ChildLoopProbe(gateway), gc: new GcProbe(gateway), agent: createAgent(), children: [gateway, engine], results: [] };
}

async function startCeiling(from: Target, framing: 'node' | 'corked' | 'self' = 'node'): Promise<Target> {
  // Frames of a 16-token answer from the first gateway: the ceiling cycles through its token frames.
  const small = Buffer.from(JSON.stringify({ ...JSON.parse((w.httpBody('stream', from.model) as Buffer).toString()), max_tokens: 16 }));
  const frames = await captureFrames('127.0.0.1', from.port, small);
  const framesFile = join(dir, 'frames.json');
  await writeFile(framesFile, JSON.stringify(frames));
  const port = await freePort();
  const server = new Child('ceiling', ['--port', String(port), '--frames', framesFile, '--step-ms', String(STEP_MS), '--mode', 'step', ...(framing === 'node' ? [] : ['--framing', framing])], {
    nodeFlags: [
      '--import', LOOP_PROBE_FILE, '--expose-gc', '--import', GC_PROBE_FILE, '--import', import.meta.resolve('tsx/esm'),
      ...(values.perf ? ['--perf-basic-prof'] : []),
    ],
    script: fileURLToPath(new URL('./bench/ceiling-server.ts', import.meta.url)),
    verbose: values.verbose,
  });
  await waitReady(`http://127.0.0.1:${port}`, server, 30_000);
  log(`ceiling pid ${server.pid} on ${port}`);
  return { name: framing === 'node' ? 'http-ceiling' : `${framing}-ceiling`, pid: server.pid, port, model: 'bench', loop: new ChildLoopProbe(server), gc: new GcProbe(server), agent: createAgent(), children: [server], results: [] };
}

async function snapshot(t: Target): Promise<void> {
  const c = t.children[0];
  const done = new Promise<void>((r) =>
    c.onLine((line) => {
      if (!line.startsWith('@@smg-bench-snapshot ')) return false;
      log(`heap snapshot ${line.slice(21)}`);
      r();
      return true;
    }),
  );
  c.child.kill('SIGPWR');
  await done;
}

function fnFor(t: Target, maxTokens: number) {
  const body = JSON.parse((w.httpBody('stream', t.model) as Buffer).toString()) as Record<string, unknown>;
  return httpRequestFn({ host: '127.0.0.1', port: t.port, body: Buffer.from(JSON.stringify({ ...body, max_tokens: maxTokens })), timeoutMs: 300_000 }, t.agent);
}

/** JIT and connection warm-up: 200 streams of 40 tokens, twice. */
async function warm(t: Target): Promise<void> {
  const run = fnFor(t, 40);
  const sink: GapSink = { gaps: new Samples() };
  for (let k = 0; k < 2; k++) {
    const rs = await Promise.all(Array.from({ length: 200 }, (_, i) => run(i, sink)));
    const bad = rs.filter((r) => !r.ok);
    if (bad.length > 0) throw new Error(`${t.name}: warm-up failed: ${bad[0].error}`);
  }
}

async function measure(t: Target, round: number): Promise<void> {
  for (const c of t.children) if (!c.running) throw new Error(await c.deathNoteAfterExit());
  // Idle first, so the warm-up's (or the previous round's) garbage is not counted against the load.
  await sleep(Number(values['pre-idle-secs']) * 1000);
  const rssBefore = rssBytes(t.pid);
  const gcBefore = await t.gc.ask();
  if (values.snapshots && t === targets[0]) await snapshot(t);
  const run = fnFor(t, MAX_TOKENS);
  const idle = new Samples();
  const sink: GapSink = { gaps: idle, arrivalGaps: new Samples() };
  const inWindow = { gaps: new Samples(), arrivalGaps: new Samples() };
  const t0 = performance.now();
  const streams: Promise<Awaited<ReturnType<typeof run>>>[] = [];
  for (let i = 0; i < N; i++) {
    const due = t0 + (RAMP_MS * i) / N;
    const wait = due - performance.now();
    if (wait > 2) await sleep(wait);
    streams.push(run(i, sink));
  }
  await sleep(Math.max(0, t0 + RAMP_MS + SETTLE_MS - performance.now()));
  // The window.
  const engine = t.children[1];
  await t.loop.reset();
  sink.gaps = inWindow.gaps;
  sink.arrivalGaps = inWindow.arrivalGaps;
  const threads0 = threadCpu(t.pid);
  const cpu0 = procCpuSeconds(t.pid);
  const ns0 = procCpuSecondsPrecise(t.pid);
  const eng0 = engine ? procCpuSeconds(engine.pid) : 0;
  const self0 = selfCpuSeconds();
  const w0 = performance.now();
  const perf = values.perf ? startPerf(t, round) : null;
  const rss: number[] = [];
  while (performance.now() - w0 < WINDOW_MS) {
    await sleep(500);
    rss.push(rssBytes(t.pid));
  }
  const cpu1 = procCpuSeconds(t.pid);
  const ns1 = procCpuSecondsPrecise(t.pid);
  const threads1 = threadCpu(t.pid);
  if (perf) await stopPerf(perf);
  // After the CPU window (a forced GC costs CPU), with all N streams still open.
  const gcDuring = await t.gc.ask();
  if (values.snapshots && t === targets[0]) await snapshot(t);
  const eng1 = engine ? procCpuSeconds(engine.pid) : 0;
  const self1 = selfCpuSeconds();
  const wallSec = (performance.now() - w0) / 1000;
  sink.gaps = new Samples();
  sink.arrivalGaps = new Samples();
  const loop = await t.loop.read();
  const results = await Promise.all(streams);
  const tEnd = performance.now();
  const ok = results.filter((r) => r.ok);
  const errors = [...new Set(results.filter((r) => !r.ok).map((r) => r.error ?? '?'))].slice(0, 3);
  const tokens = inWindow.gaps.length;
  const gaps = summarize(inWindow.arrivalGaps.view());
  const ttfts = Float64Array.from(ok.map((r) => r.ttftMs)).sort();
  const meanRss = rss.reduce((a, b) => a + b, 0) / rss.length;
  const res: RoundResult = {
    ok: ok.length,
    failed: results.length - ok.length,
    errors,
    tokens,
    cpuUsPerTok: ((cpu1 - cpu0) * 1e6) / tokens,
    preciseUsPerTok: ((ns1 - ns0) * 1e6) / tokens,
    cores: (cpu1 - cpu0) / wallSec,
    engineCores: (eng1 - eng0) / wallSec,
    clientCores: (self1 - self0) / wallSec,
    loop,
    gapP99: gaps.p99,
    gapP50: gaps.p50,
    ttftP50: percentile(ttfts, 50),
    rssBeforeMb: rssBefore / 2 ** 20,
    rssPerStreamKb: (meanRss - rssBefore) / 1024 / N,
    rssAfterIdleMb: Number.NaN,
    gcRssBeforeMb: gcBefore ? gcBefore.rss / 2 ** 20 : Number.NaN,
    gcRssPerStreamKb: gcBefore && gcDuring ? (gcDuring.rss - gcBefore.rss) / 1024 / N : Number.NaN,
    gcHeapPerStreamKb: gcBefore && gcDuring ? (gcDuring.heapUsed + gcDuring.external - gcBefore.heapUsed - gcBefore.external) / 1024 / N : Number.NaN,
    gcRssAfterIdleMb: Number.NaN,
  };
  t.results.push(res);
  log(
    `round ${round + 1} ${t.name}: ${res.ok} ok ${res.failed} failed${errors.length ? ` (${errors.join('; ')})` : ''}, ` +
      `${res.cpuUsPerTok.toFixed(1)} µs/tok (schedstat ${res.preciseUsPerTok.toFixed(1)}), ${res.cores.toFixed(2)} cores, ${(tokens / wallSec).toFixed(0)} tok/s, loop p99 ${loop?.delayP99Ms?.toFixed(1)} ms, ` +
      `gap p99 ${res.gapP99.toFixed(1)} ms, TTFT p50 ${res.ttftP50.toFixed(0)} ms, RSS ${res.rssBeforeMb.toFixed(0)} MB + ${res.rssPerStreamKb.toFixed(1)} KB/stream, client ${res.clientCores.toFixed(2)} cores`,
  );
  const perThread = [...threads1]
    .map(([k, v]) => [k, (v - (threads0.get(k) ?? 0)) / wallSec] as const)
    .filter(([, v]) => v >= 0.01)
    .sort((a, b) => b[1] - a[1]);
  log(`round ${round + 1} ${t.name}: cores by thread: ${perThread.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  pendingIdle.push(
    (async () => {
      await sleep(Math.max(0, tEnd + IDLE_MS - performance.now()));
      res.rssAfterIdleMb = rssBytes(t.pid) / 2 ** 20;
      const gcAfter = await t.gc.ask();
      res.gcRssAfterIdleMb = gcAfter ? gcAfter.rss / 2 ** 20 : Number.NaN;
      log(`round ${round + 1} ${t.name}: RSS ${res.rssAfterIdleMb.toFixed(0)} MB after ${IDLE_MS / 1000} s idle (before ${res.rssBeforeMb.toFixed(0)} MB)`);
    })(),
  );
}

/**
 * `perf record` of the target's process for the window: CPU-time samples (a loaded box does not
 * inflate them, unlike --cpu-prof's wall-clock ticks), with the kernel's share of each write and
 * every thread (ZMQ, GC helpers). JS frames are named through --perf-basic-prof's map file.
 */
function startPerf(t: Target, round: number): ChildProcess {
  const tag = t.name.endsWith('ceiling') ? t.name : t.name[0];
  const out = join(resolve(values.perf!), `${tag}-r${round + 1}.data`);
  return spawn('perf', ['record', '-q', '-F', '997', '-g', '-p', String(t.pid), '-o', out], { stdio: 'ignore' });
}

async function stopPerf(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const done = new Promise<void>((r) => p.once('exit', () => r()));
  p.kill('SIGINT');
  await done;
}

function report(): void {
  const med = (xs: number[]) => percentile(Float64Array.from(xs.filter(Number.isFinite)).sort(), 50);
  const ceiling = targets.find((t) => t.name === 'http-ceiling');
  const col = (t: Target, f: (r: RoundResult) => number) => med(t.results.map(f));
  console.log(`\n${N} streams × one token per ${STEP_MS} ms, window ${WINDOW_MS / 1000} s, ${values.rounds} round(s) (medians)`);
  const rows: [string, (r: RoundResult) => number, number][] = [
    ['CPU µs/token', (r) => r.cpuUsPerTok, 1],
    ['  schedstat µs/token', (r) => r.preciseUsPerTok, 1],
    ['cores', (r) => r.cores, 2],
    ['loop delay p99 ms', (r) => r.loop?.delayP99Ms ?? Number.NaN, 1],
    ['loop utilization', (r) => r.loop?.utilization ?? Number.NaN, 2],
    ['gc ms in window', (r) => r.loop?.gcMs ?? Number.NaN, 0],
    ['arrival gap p50 ms', (r) => r.gapP50, 1],
    ['arrival gap p99 ms', (r) => r.gapP99, 1],
    ['TTFT p50 ms', (r) => r.ttftP50, 0],
    ['RSS before MB', (r) => r.rssBeforeMb, 0],
    ['RSS per open stream KB', (r) => r.rssPerStreamKb, 1],
    [`RSS after ${IDLE_MS / 1000} s idle MB`, (r) => r.rssAfterIdleMb, 0],
    ['  after ÷ before', (r) => r.rssAfterIdleMb / r.rssBeforeMb, 2],
    ['after full GC: RSS before MB', (r) => r.gcRssBeforeMb, 0],
    ['  RSS per open stream KB', (r) => r.gcRssPerStreamKb, 1],
    ['  heap+external /stream KB', (r) => r.gcHeapPerStreamKb, 1],
    [`  RSS after ${IDLE_MS / 1000} s idle MB`, (r) => r.gcRssAfterIdleMb, 0],
    ['engine cores', (r) => r.engineCores, 2],
    ['client cores', (r) => r.clientCores, 2],
    ['failed streams', (r) => r.failed, 0],
  ];
  const names = targets.map((t) => (t.name.length > 40 ? `…${t.name.slice(-39)}` : t.name));
  console.log(['figure'.padEnd(26), ...names.map((n) => n.padStart(42)), ...(ceiling ? targets.filter((t) => t !== ceiling).map((t) => `${t.name[0]} ÷ ceil`.padStart(10)) : [])].join(''));
  for (const [label, f, digits] of rows) {
    const vals = targets.map((t) => col(t, f));
    const ratios = ceiling ? targets.filter((t) => t !== ceiling).map((t) => (col(t, f) / col(ceiling, f)).toFixed(2).padStart(10)) : [];
    console.log([label.padEnd(26), ...vals.map((v) => (Number.isFinite(v) ? v.toFixed(digits) : '-').padStart(42)), ...ratios].join(''));
  }
}
