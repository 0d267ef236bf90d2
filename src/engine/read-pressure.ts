/**
 * How an engine output reader shares the event loop. zeromq.js resolves up to 512 receives in a
 * row synchronously when messages are queued, so a reader that never yields holds the event loop
 * for hundreds of milliseconds when an engine outruns the gateway (timers, health probes, new
 * requests and the SSE writes of api/flush-scheduler.ts wait behind it). Readers therefore yield
 * every READ_SLICE_MS while messages are still queued.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Longest stretch a reader processes messages before letting the loop run (ms). Measured at C = 256
 * against a zero-delay engine (with the same slice in flush-scheduler.ts and util/fair-turn.ts):
 * 2 ms gave a loop delay p99 of ~16 ms, 1 ms ~10 ms at no cost in tokens/s, 0.5 ms ~7-10 ms but
 * ~10 % fewer tokens/s; one engine message (256 outputs) is never split.
 */
export const READ_SLICE_MS = 1;

/** A reader whose slice is spent yields here; returns the end of its next slice. */
export async function yieldSpentSlice(): Promise<number> {
  await nextTurn();
  return performance.now() + READ_SLICE_MS;
}
