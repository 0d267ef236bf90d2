/**
 * Whether an engine output reader is running behind: it stopped draining its socket because its
 * time slice ran out, not because the socket was empty. zeromq.js resolves up to 512 receives in a
 * row synchronously when messages are queued, so a reader that never yields holds the event loop
 * for hundreds of milliseconds when an engine outruns the gateway (timers, health probes and new
 * requests wait behind it). Readers therefore yield every READ_SLICE_MS; while one is behind, the
 * SSE flush scheduler (api/flush-scheduler.ts) may hold a stream's frames a little longer so
 * they still leave in few writes.
 *
 * Process-wide on purpose: every reader and every stream share one event loop.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Longest stretch a reader processes messages before letting the loop run (ms). Measured at C = 256
 * against a zero-delay engine (with the same slice in flush-scheduler.ts and util/fair-turn.ts):
 * 2 ms gave a loop delay p99 of ~16 ms, 1 ms ~10 ms at no cost in tokens/s, 0.5 ms ~7-10 ms but
 * ~10 % fewer tokens/s; one engine message (256 outputs) is never split.
 */
export const READ_SLICE_MS = 1;

/** A reader that yielded is "behind" until this long after its last yield without a refresh. */
const BACKLOG_TTL_MS = 2 * READ_SLICE_MS + 1;

let behindUntil = 0;
let caughtUpListener: (() => void) | null = null;

/** Until when some reader counts as behind (performance.now() time; past means none is). */
export function readersBehindUntil(): number {
  return behindUntil;
}

/** Called (synchronously) when a reader that was behind finds its socket empty. */
export function onReadersCaughtUp(listener: () => void): void {
  caughtUpListener = listener;
}

/** A reader whose slice is spent yields here; returns the end of its next slice. */
export async function yieldSpentSlice(): Promise<number> {
  behindUntil = performance.now() + BACKLOG_TTL_MS;
  await nextTurn();
  return performance.now() + READ_SLICE_MS;
}

/** A reader is about to wait for its engine: nothing it holds back needs holding any more. */
export function readerCaughtUp(): void {
  if (behindUntil === 0) return;
  behindUntil = 0;
  caughtUpListener?.();
}
