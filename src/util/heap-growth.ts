/**
 * How far V8 lets the old generation grow past what the last full GC left live before it starts
 * the next one. By default V8 picks a factor between 1.1 and 4 from how fast the program allocates
 * against how fast it collects; a gateway taking a burst of new requests allocates fast, so the
 * factor is low and the burst's in-flight state (~30 KB per request that outlives a scavenge)
 * starts a full GC in the middle of it: on issue 30's 1,000-arrival burst, concurrent marking on
 * V8's helper threads took 120-440 ms of CPU per burst next to ~550 ms on the main thread, on a
 * 2-core box where the helper threads compete with the event loop and the engine.
 *
 * The gateway fixes the factor at V8's own upper bound (4: --heap-growing-percent=300, a flag V8
 * reads at every full GC, so it applies when set at run time). Interleaved bursts (scripts/
 * arrivals-ab.ts, 5 rounds): GC helper CPU 302 → 144 ms per burst, server CPU 900 → 570 µs per
 * stream, TTFT p50 ÷ the bare server 2.16× → 1.52×. The price is garbage kept longer between full
 * GCs while busy (up to about 3× the live heap); V8's memory reducer still collects and shrinks
 * the heap once the gateway goes quiet.
 *
 * A --heap-growing-percent the user gave node on its command line is left alone (node refuses it
 * in NODE_OPTIONS).
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 300;

export function tuneHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
