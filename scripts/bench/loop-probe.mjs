/**
 * Opt-in preload for a process the bench serves from (`node --import <this file> …`): watches the
 * main thread's event loop and, on SIGUSR2, prints what it saw since the previous SIGUSR2 as one
 * line on stderr (`@@smg-bench-loop {json}`), then starts a new window. The bench sends one signal
 * when a phase starts (the answer is dropped) and one when it ends.
 *
 * Plain JavaScript on purpose: it runs before bin/smg.js registers tsx, and must not change how the
 * gateway loads its own modules. SIGUSR2 because SIGUSR1 starts Node's inspector.
 *
 * - delay: perf_hooks.monitorEventLoopDelay. On Node 20 it records the interval between its timer's
 *   callbacks, so the resolution is subtracted to leave the time the loop was late.
 * - busy: performance.eventLoopUtilization(): milliseconds the loop spent running callbacks (not
 *   waiting in epoll) in the window. Work moved to worker threads does not count here.
 * - gc: the main thread's garbage-collection pauses (PerformanceObserver 'gc' entries): their sum
 *   and the longest one, to tell a late timer caused by GC from one caused by our own callbacks.
 * - turns: how long the loop was held in one piece. A 1 ms interval reads the main thread's own CPU
 *   time (/proc/self/task/<pid>/schedstat, ns; one pread, ~2 µs, after a getrusage that brings the
 *   field up to date, ~3 µs, see schedstat.mjs) each time it runs; the main-thread
 *   CPU between two runs is the longest stretch no timer could run (a turn, or several turns shorter
 *   than the 1 ms period, so the floor is ~1 ms). Unlike the delay above it does not count time the
 *   thread sat runnable while another process had the core (schedstat's second field, reported as
 *   turnWaitMaxMs), which on two shared cores is most of a late timer. Only with
 *   SMG_BENCH_LOOP_TURNS=1 in the environment (the bench sets it for the long-prompt targets): the
 *   1 ms JS timer costs ~2 % of a core, which would blur CPU-per-token ratios elsewhere. Off too
 *   where schedstat cannot be read (turn figures null).
 *
 * SIGWINCH (no default action, and the served processes have no terminal) asks for one full
 * garbage collection, answered by `@@smg-bench-gc ok` on stderr: the paced phase reads "RSS before"
 * after it, so the baseline holds no collectable garbage. The gc function comes from a fresh vm context after
 * --expose-gc is set at runtime, so no `gc` global appears in the served process's own context.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { PerformanceObserver, createHistogram, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { gcKindName } from './gc-kind.mjs';
import { mainThreadSchedstat } from './schedstat.mjs';

const MARK = '@@smg-bench-loop ';
const GC_MARK = '@@smg-bench-gc ';
const RESOLUTION_MS = 1;

if (isMainThread) {
  const hist = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  hist.enable();
  let elu = performance.eventLoopUtilization();
  let windowStart = performance.now();
  const lateMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  let gcMs = 0;
  let gcMaxMs = 0;
  let gcMaxKind = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      if (e.duration > gcMaxMs) {
        gcMaxMs = e.duration;
        gcMaxKind = gcKindName(e.detail?.kind);
      }
    }
  }).observe({ entryTypes: ['gc'] });

  /** Main-thread CPU (µs) between two runs of the 1 ms timer; null when schedstat is unreadable. */
  let turnHist = null;
  let turnWaitMaxNs = 0;
  try {
    if (process.env.SMG_BENCH_LOOP_TURNS !== '1') throw new Error('turns not asked for');
    const readNow = mainThreadSchedstat();
    const prev = [0, 0];
    const now = [0, 0];
    readNow(prev);
    if (Number.isFinite(prev[0])) {
      turnHist = createHistogram();
      setInterval(() => {
        readNow(now);
        turnHist.record(Math.max(1, Math.round((now[0] - prev[0]) / 1000)));
        if (now[1] - prev[1] > turnWaitMaxNs) turnWaitMaxNs = now[1] - prev[1];
        prev[0] = now[0];
        prev[1] = now[1];
      }, 1).unref();
    }
  } catch {
    turnHist = null;
  }

  process.on('SIGWINCH', () => {
    try {
      v8.setFlagsFromString('--expose-gc');
      vm.runInNewContext('gc')();
      process.stderr.write(`${GC_MARK}ok\n`);
    } catch (err) {
      process.stderr.write(`${GC_MARK}failed: ${err.message}\n`);
    }
  });

  process.on('SIGUSR2', () => {
    const now = performance.now();
    const nextElu = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(nextElu, elu);
    const count = hist.count;
    const stats = {
      windowMs: now - windowStart,
      samples: count,
      delayP50Ms: count > 0 ? lateMs(hist.percentile(50)) : null,
      delayP99Ms: count > 0 ? lateMs(hist.percentile(99)) : null,
      delayMaxMs: count > 0 ? lateMs(hist.max) : null,
      busyMs: d.active,
      utilization: d.utilization,
      gcMs,
      gcMaxMs,
      gcMaxKind,
      turnP99Ms: turnHist && turnHist.count > 0 ? turnHist.percentile(99) / 1000 : null,
      turnMaxMs: turnHist && turnHist.count > 0 ? turnHist.max / 1000 : null,
      turnWaitMaxMs: turnHist ? turnWaitMaxNs / 1e6 : null,
    };
    gcMs = 0;
    gcMaxMs = 0;
    gcMaxKind = null;
    turnHist?.reset();
    turnWaitMaxNs = 0;
    hist.reset();
    elu = nextElu;
    windowStart = now;
    process.stderr.write(`${MARK}${JSON.stringify(stats)}\n`);
  });
}
