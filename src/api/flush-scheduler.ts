/**
 * When streams' pending SSE frames are written out. A stream with new frames is queued here once;
 * one check-phase callback per turn writes the queue in order, so every engine message already
 * read in that turn is handled first and a stream's frames from all of them leave in one write.
 *
 * A turn writes for at most FLUSH_SLICE_MS; the rest go first in the next turn (256 streams'
 * writes to loopback sockets take several ms, and timers and new requests would wait behind).
 *
 * Streams that have not written a token yet go first (`first`): when many requests arrive at once,
 * the engine's next step answers the newcomers' prompts in the same message as the next tokens of
 * every stream already running, and in arrival order their first frames queued behind all of
 * those writes (issue 30: 1,000 streams arriving together waited a median 13-140 ms between their
 * first token reaching the gateway and its write). A first token is what its user is waiting for;
 * a running stream's next token only waits a little longer, and leaves in one write with the ones
 * after it. Every stream's frames still leave in order: a stream is in one queue at a time.
 *
 * Frames are not held back past their turn. Holding a stream's frames for up to 20 ms while an
 * engine reader was behind saved writes, but measured on the 2-core box (C = 64 and 256, zero-delay
 * engine) it cost more than it saved: held responses finish later, the engine then has fewer
 * requests running together and sends more, smaller messages per token.
 */

export interface Flushable {
  /** Writes what the stream has pending (or ends it, if it is over). */
  flush(): void;
  /**
   * flush() threw: the stream ends itself and reports it. The queue is shared by every stream, so
   * one stream's exception must not stop the others' writes (or leave the immediate disarmed).
   */
  flushFailed(err: unknown): void;
}

const FLUSH_SLICE_MS = 0.5;
/** Clock reads are batched: one per this many flushes. */
const CHECK_EVERY = 8;

/** Streams whose first token is pending, then every other stream with frames to write. */
let firstQueue: Flushable[] = [];
let queue: Flushable[] = [];
let immediate = false;

/**
 * Queues `s` to be written at the end of this turn (or, past the turn's slice, the next one);
 * `first`: it has written no token yet, and goes before the streams that have.
 */
export function scheduleFlush(s: Flushable, first = false): void {
  if (first) firstQueue.push(s);
  else queue.push(s);
  armImmediate();
}

function armImmediate(): void {
  if (immediate) return;
  immediate = true;
  setImmediate(flushQueued);
}

function flushQueued(): void {
  immediate = false;
  const start = performance.now();
  if (firstQueue.length > 0) {
    const batch = firstQueue;
    firstQueue = [];
    const done = flushSome(batch, start);
    // Past the slice: the rest of the first frames go first next turn, before any other stream.
    if (done < batch.length || performance.now() - start > FLUSH_SLICE_MS) {
      firstQueue = batch.slice(done).concat(firstQueue);
      armImmediate();
      return;
    }
  }
  const batch = queue;
  queue = [];
  const done = flushSome(batch, start);
  if (done < batch.length) {
    // Streams queued meanwhile (a drain that wrote and then made more) follow these.
    queue = batch.slice(done).concat(queue);
    armImmediate();
  }
}

/** Flushes `batch` in order until the slice that began at `start` is spent; returns how many. */
function flushSome(batch: Flushable[], start: number): number {
  let i = 0;
  while (i < batch.length) {
    const s = batch[i++];
    try {
      s.flush();
    } catch (err) {
      s.flushFailed(err);
    }
    if (i % CHECK_EVERY === 0 && performance.now() - start > FLUSH_SLICE_MS) break;
  }
  return i;
}
