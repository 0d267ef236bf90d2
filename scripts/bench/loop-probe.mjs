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
 */
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const MARK = '@@smg-bench-loop ';
const RESOLUTION_MS = 1;

if (isMainThread) {
  const hist = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  hist.enable();
  let elu = performance.eventLoopUtilization();
  let windowStart = performance.now();
  const lateMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  let gcMs = 0;
  let gcMaxMs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      if (e.duration > gcMaxMs) gcMaxMs = e.duration;
    }
  }).observe({ entryTypes: ['gc'] });

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
    };
    gcMs = 0;
    gcMaxMs = 0;
    hist.reset();
    elu = nextElu;
    windowStart = now;
    process.stderr.write(`${MARK}${JSON.stringify(stats)}\n`);
  });
}
