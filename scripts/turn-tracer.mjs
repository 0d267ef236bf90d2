/**
 * Opt-in preload (`node --import <this file>`, e.g. through the bench's --gateway-node-flags) that
 * records the event-loop turns holding the main thread's CPU longest, to tell what fills them:
 *
 *   TURN_TRACE_FILE=/tmp/t.json npm run bench -- --phases long-prompt \
 *     --gateway-node-flags="--import $PWD/scripts/turn-tracer.mjs --cpu-prof --cpu-prof-dir /tmp/p --cpu-prof-interval 100"
 *   node scripts/turn-trace-report.mjs /tmp/t.json /tmp/p/*.cpuprofile
 *
 * The measure is loop-probe.mjs's "longest turn": main-thread CPU (schedstat) between two runs of
 * a 1 ms timer. Each stretch over TURN_TRACE_MS (default 3) is kept with its bounds on the
 * monotonic clock (µs, the CPU profile's clock), and every GC pause with its kind; on exit they are
 * written to TURN_TRACE_FILE. turn-trace-report.mjs lays them over a CPU profile's samples.
 */
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { mainThreadSchedstat } from './bench/schedstat.mjs';

const file = process.env.TURN_TRACE_FILE;
if (isMainThread && file) {
  const threshold = Number(process.env.TURN_TRACE_MS ?? '3') * 1e6;
  const read = mainThreadSchedstat();
  const us = () => Number(process.hrtime.bigint() / 1000n);
  // performance.now() (GC entries' clock) to the monotonic µs clock.
  const perfToUs = us() - performance.now() * 1000;
  const turns = [];
  const gcs = [];
  const hist = new Map();
  // The bench's loop probe takes SIGUSR2 at each window's start and end: the same moments, here.
  const marks = [];
  // Histograms per stretch between marks (hists[n] = before mark n).
  const hists = [];
  const sorted = (h) => Object.fromEntries([...h].sort((x, y) => x[0] - y[0]));
  process.on('SIGUSR2', () => {
    marks.push(us());
    hists.push(sorted(hist));
    hist.clear();
  });
  const prev = [0, 0];
  const now = [0, 0];
  read(prev);
  let prevT = us();
  setInterval(() => {
    read(now);
    const t = us();
    const cpu = now[0] - prev[0];
    const bucket = Math.floor(cpu / 1e6);
    hist.set(bucket, (hist.get(bucket) ?? 0) + 1);
    if (cpu > threshold) turns.push({ fromUs: prevT, toUs: t, cpuMs: cpu / 1e6, waitMs: (now[1] - prev[1]) / 1e6 });
    prev[0] = now[0];
    prev[1] = now[1];
    prevT = t;
  }, 1).unref();
  const kinds = { 1: 'scavenge', 2: 'minor-mc', 4: 'mark-compact', 8: 'incremental', 16: 'weakcb' };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcs.push({ atUs: perfToUs + e.startTime * 1000, ms: e.duration, kind: kinds[e.detail?.kind] ?? String(e.detail?.kind) });
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    hists.push(sorted(hist));
    writeFileSync(file, JSON.stringify({ pid: process.pid, thresholdMs: threshold / 1e6, hists, marks, turns, gcs }));
  });
}
