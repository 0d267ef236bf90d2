/**
 * How an engine output reader shares the event loop. zeromq.js resolves up to 512 receives in a
 * row synchronously when messages are queued, so a reader that never yields holds the event loop
 * for hundreds of milliseconds when an engine outruns the gateway (timers, health probes, new
 * requests and the SSE writes of api/flush-scheduler.ts wait behind it). Readers therefore yield
 * every READ_SLICE_MS while messages are still queued.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Longest stretch a reader processes messages before letting the loop run (ms). A reader can run in
 * two phases of one loop turn (poll, when its socket wakes it, and check, after a yield), next to the
 * flush scheduler's and fair-turn.ts's slices, so the slices add up. Measured at C = 256 against a
 * zero-delay engine, loop delay p99 (four runs each, 2-core box): all slices at 1 ms 7.4-8.7 ms; the
 * reader's at 0.5 ms 6.0-7.4 ms; the reader's and the flush scheduler's at 0.5 ms 4.9-6.3 ms, with
 * tokens/s within the runs' noise. One engine message is never split.
 */
export const READ_SLICE_MS = 0.5;

/** A reader whose slice is spent yields here; returns the end of its next slice. */
export async function yieldSpentSlice(): Promise<number> {
  await nextTurn();
  return performance.now() + READ_SLICE_MS;
}
