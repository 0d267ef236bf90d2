/**
 * Issue 30's arrival burst for several gateway trees and the bare ceiling in one run, interleaved:
 * each target is started once the way `npm run bench -- --phases arrivals` starts it (a fresh
 * gateway in front of a mock engine paced at --paced-step-ms with the bench's engine flags, or the
 * ceiling server paced alike), warmed up as the bench does, and then the bursts alternate between
 * the targets (A, B, ceiling, A, B, ceiling...), so drift on a shared box lands on all of them.
 * Each burst is the bench's own measurement (scripts/bench/paced.ts runArrivals).
 *
 *   npx tsx scripts/arrivals-ab.ts DIR[@KEY=VALUE,...] [DIR...] [--rounds 5] [--no-ceiling]
 *        [--pause-secs 2] [--warm-bursts 1] [--fresh]
 *        [--profile DIR]   (gateway cpuprofiles, written when the targets close)
 *        [-- BENCH FLAGS]  (e.g. --arrivals 1000 --arrivals-max-tokens 20 --paced-step-ms 50)
 *
 * The measured bursts follow --warm-bursts unrecorded ones per target; --fresh instead starts new
 * targets for every burst (the first burst on a target, which the bench reports beside its measured
 * second one; far noisier).
 * DIR@KEY=VALUE sets environment variables for that tree's gateway and engine.
 *
 * Prints per target the TTFT p50 of every burst, their median, and each gateway's ratio to the
 * ceiling burst of the same round (the issue's figure), with the median of those ratios; and logs
 * per burst the server's CPU per thread and the machine's listen-queue overflows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { runArrivals, warmPaced, type ArrivalsResult } from './bench/paced.js';
import { PerfRecorder, summarizePerf } from './bench/perf.js';
import { stopAll, sleep } from './bench/procs.js';
import { percentile } from './bench/stats.js';
import { startCeiling } from './bench/targets/ceiling.js';
import type { TargetHandle } from './bench/targets/target.js';
import type { SseFrames } from './bench/sse-frames.js';
import { buildWorkloads } from './bench/workloads.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '5' },
    'no-ceiling': { type: 'boolean', default: false },
    'pause-secs': { type: 'string', default: '2' },
    // Bursts per target before the measured rounds: the first burst on a fresh target grows its
    // heap and compiles the paths of new connections (the bench's burst follows its paced phase).
    'warm-bursts': { type: 'string', default: '1' },
    profile: { type: 'string' },
    // `perf record` of each gateway's measured bursts (FILE per burst in this directory); give the
    // gateway perf's flags too: -- --gateway-node-flags="--perf-basic-prof --interpreted-frames-native-stack".
    perf: { type: 'string' },
    // Fresh targets for every burst (started one at a time): see below.
    fresh: { type: 'boolean', default: false },
  },
});
const sep = process.argv.indexOf('--');
const benchArgv = sep >= 0 ? process.argv.slice(sep + 1) : [];
const trees = positionals.filter((p) => !benchArgv.includes(p));
if (trees.length === 0) {
  process.stderr.write('usage: npx tsx scripts/arrivals-ab.ts DIR [DIR...] [--rounds 5] [--no-ceiling] [--profile DIR] [-- BENCH FLAGS]\n');
  process.exit(2);
}
const opts = parseBenchArgs(['--phases', 'arrivals', ...benchArgv])!;
const w = await buildWorkloads(opts);
const dir = await mkdtemp(join(tmpdir(), 'smgarr-'));
// As scripts/bench.ts runs the arrivals phase: the paced target, its engine admitting a whole burst per step.
const pacedOpts = { ...opts, tokenDelayMs: opts.pacedStepMs, perfFile: null, profileDir: values.profile ? resolve(values.profile) : null };
const engineExtra = ['--max-num-batched-tokens', String(Math.max(8192, (opts.arrivals + opts.pacedStreams) * (w.promptTokenIds.length + 1)))];
const log = (m: string) => process.stderr.write(`arrivals-ab: ${m}\n`);
const median = (xs: readonly number[]) => percentile([...xs].sort((a, b) => a - b), 50);

interface Entry {
  name: string;
  handle: TargetHandle | null;
  runs: ArrivalsResult[];
}
let seq = 0;
const entries: Entry[] = [];
try {
  let frames: SseFrames | null = null;
  const start = async (i: number, spec: string): Promise<TargetHandle> => {
    if (spec === 'ceiling') {
      await mkdir(join(dir, `ceil-${seq}`));
      return startCeiling(pacedOpts, join(dir, `ceil-${seq++}`), w, frames!, opts.pacedStepMs);
    }
    // DIR@KEY=VALUE,KEY=VALUE: environment for that tree's gateway and engine (experiment switches).
    const [d, envSpec] = spec.split('@');
    const env = Object.fromEntries((envSpec ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const mod = (await import(pathToFileURL(resolve(d, 'scripts/bench/targets/gateway.ts')).href)) as typeof import('./bench/targets/gateway.js');
    await mkdir(join(dir, `gw-${seq}`));
    try {
      const handle = await mod.startGateway(pacedOpts, join(dir, `gw-${seq++}`), w, frames === null, engineExtra);
      frames ??= handle.frames;
      return handle;
    } finally {
      for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
      Object.assign(process.env, saved);
    }
  };
  const specs = [...trees, ...(values['no-ceiling'] ? [] : ['ceiling'])];
  const burst = async (e: Entry, warm: boolean) => {
    await sleep(Number(values['pause-secs']) * 1000);
    if (warm) {
      await runArrivals(e.handle!, pacedOpts, `${e.name} (warm-up burst)`);
      return;
    }
    const th0 = threadCpu(e.handle!.serverPid as number);
    const o0 = listenOverflows();
    const pid = e.handle!.serverPid as number;
    const perfFile = values.perf && e.name !== 'ceiling' ? join(resolve(values.perf), `burst-${e.name.split(' ')[0]}-${e.runs.length}.data`) : null;
    const perf = perfFile ? new PerfRecorder(pid, perfFile) : null;
    await perf?.start();
    e.runs.push(await runArrivals(e.handle!, pacedOpts, e.name));
    if (perf) {
      await perf.stop();
      process.stdout.write(`${await summarizePerf(perfFile!, pid, 60)}\n`);
    }
    const o1 = listenOverflows();
    const th1 = threadCpu(e.handle!.serverPid as number);
    log(`${e.name}: ${o1 - o0} listen-queue overflows on the machine during the burst (SYNs dropped: retried after 1 s); server threads CPU ms over the burst: ${[...th1].map(([k, v]) => [k, v - (th0.get(k) ?? 0)] as const).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    await e.handle!.alive();
  };
  for (const [i, spec] of specs.entries()) entries.push({ name: spec === 'ceiling' ? 'ceiling' : `${'ABCDEFG'[i]} ${spec}`, handle: null, runs: [] });
  if (values.fresh) {
    // Every round on fresh targets, one at a time: the bench's first burst (on a target that was
    // warmed up at C = 32 and then garbage-collected).
    for (let k = 0; k < Number(values.rounds); k++) {
      for (const [i, e] of entries.entries()) {
        e.handle = await start(i, specs[i]);
        try {
          await warmPaced(e.handle, pacedOpts, e.name);
          await burst(e, false);
        } finally {
          await e.handle.close();
          e.handle = null;
        }
      }
    }
  } else {
    for (const [i, e] of entries.entries()) e.handle = await start(i, specs[i]);
    for (const e of entries) await warmPaced(e.handle!, pacedOpts, e.name);
    for (let k = 0; k < Number(values['warm-bursts']); k++) for (const e of entries) await burst(e, true);
    for (let k = 0; k < Number(values.rounds); k++) for (const e of entries) await burst(e, false);
  }
} finally {
  for (const e of entries) await e.handle?.close().catch(() => {});
  await stopAll();
  await rm(dir, { recursive: true, force: true });
}

/** The machine's TcpExt ListenOverflows counter (connections dropped because an accept queue was full). */
function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const i = lines.findIndex((l) => l.startsWith('TcpExt:'));
  const names = lines[i].split(' ');
  const vals = lines[i + 1].split(' ');
  return Number(vals[names.indexOf('ListenOverflows')]);
}

/** CPU ms per thread name (summed over threads of one name) of a process, from /proc. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  const tick = 10; // USER_HZ 100
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * tick);
    } catch {
      /* thread gone */
    }
  }
  return out;
}

const ceiling = entries.find((e) => e.name === 'ceiling');
const lines: string[] = [`${opts.arrivals} arrivals of ${opts.arrivalsMaxTokens} tokens, paced ${opts.pacedStepMs} ms; TTFT p50 per burst (head p50 | issue ms | failed)`];
for (const e of entries) {
  const p50s = e.runs.map((r) => r.ttft.p50);
  let line = `${e.name}: ${e.runs.map((r) => `${r.ttft.p50.toFixed(0)} (${r.head.p50.toFixed(0)}|${r.issueMs.toFixed(0)}|${r.failed})`).join(' ')}; median ${median(p50s).toFixed(0)} ms`;
  if (ceiling && e !== ceiling) {
    const ratios = e.runs.map((r, i) => r.ttft.p50 / ceiling.runs[i].ttft.p50);
    line += `; ÷ ceiling ${ratios.map((x) => x.toFixed(2)).join(' ')}, median ${median(ratios).toFixed(2)}x`;
  }
  line += `; p99 median ${median(e.runs.map((r) => r.ttft.p99)).toFixed(0)} ms`;
  // CPU per arriving stream (its intake and its tokens) of each process, median over bursts.
  const cpu = (k: string) => median(e.runs.map((r) => r.cpu[k]?.usPerRequest ?? Number.NaN));
  line += `; CPU µs/stream server ${cpu('server').toFixed(0)}, engine ${cpu('engine').toFixed(0)}, client ${cpu('client').toFixed(0)}`;
  lines.push(line);
}
process.stdout.write(`${lines.join('\n')}\n`);
