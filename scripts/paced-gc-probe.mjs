/**
 * Opt-in preload for scripts/paced-streams-bench.ts (`node --expose-gc --import <this file> …`):
 * on SIGWINCH, runs a full garbage collection and prints one stderr line
 * `@@smg-bench-gc {"rss":…,"heapUsed":…,"external":…,"arrayBuffers":…}` (bytes, after the GC).
 * RSS alone moves by tens of MB with GC timing; after a full GC it shows what is retained.
 * On SIGPWR, writes a heap snapshot into $SMG_BENCH_SNAPSHOT_DIR (or the working directory) and
 * prints `@@smg-bench-snapshot <file>`.
 * Measurement only: the gateway itself never relies on --expose-gc.
 */
import { isMainThread } from 'node:worker_threads';
import { writeHeapSnapshot } from 'node:v8';

if (isMainThread && typeof globalThis.gc === 'function') {
  process.on('SIGWINCH', () => {
    globalThis.gc();
    const m = process.memoryUsage();
    process.stderr.write(`@@smg-bench-gc ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers })}\n`);
  });
  process.on('SIGPWR', () => {
    const dir = process.env.SMG_BENCH_SNAPSHOT_DIR ?? '.';
    const file = writeHeapSnapshot(`${dir}/heap-${process.pid}-${Date.now()}.heapsnapshot`);
    process.stderr.write(`@@smg-bench-snapshot ${file}\n`);
  });
}
