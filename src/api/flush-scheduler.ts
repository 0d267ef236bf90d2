/**
 * When corked SSE responses are written out. A stream corks its response at its first frame of an
 * event-loop turn and is queued here; one check-phase callback per turn uncorks the queue in
 * order, so every engine message already read in that turn leaves in one write per stream.
 *
 * Two limits keep that from turning into a stall of its own:
 * - a turn uncorks for at most FLUSH_SLICE_MS; the rest go first in the next turn (256 streams'
 *   writes to loopback sockets take several ms, and timers and new requests would wait behind);
 * - while an engine reader is behind (engine/read-pressure.ts: it yielded with messages still
 *   queued), a stream corked less than HOLD_MAX_MS ago stays corked, so an engine that outruns the
 *   gateway still costs one write per stream per several turns rather than one per token. Held
 *   streams go out when the reader catches up or their time is up (a timer, never a busy loop).
 *   Below capacity no reader is behind and every frame leaves in the turn it was made; a stream
 *   that ends is written at once (Node's res.end() uncorks).
 */
import { onReadersCaughtUp, readersBehindUntil } from '../engine/read-pressure.js';

export interface Corked {
  /** performance.now() when the response was corked. */
  readonly corkedAt: number;
  /** Uncorks the response (its frames go out in one write). */
  flush(): void;
}

const FLUSH_SLICE_MS = 1;
const HOLD_MAX_MS = 20;
/** Clock reads are batched: one per this many flushes. */
const CHECK_EVERY = 8;

let queue: Corked[] = [];
let immediate = false;
let timer: NodeJS.Timeout | null = null;

/** Queues `c` to be flushed at the end of this turn (or a later one, see above). */
export function scheduleFlush(c: Corked): void {
  queue.push(c);
  armImmediate();
}

onReadersCaughtUp(() => {
  if (queue.length > 0) armImmediate();
});

function armImmediate(): void {
  if (immediate) return;
  immediate = true;
  setImmediate(flushQueued);
}

function flushQueued(): void {
  immediate = false;
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  const batch = queue;
  queue = [];
  const start = performance.now();
  // Streams corked after this instant are held; none are when every reader is keeping up.
  const behindUntil = readersBehindUntil();
  const holdFrom = start < behindUntil ? start - HOLD_MAX_MS : Infinity;
  const held: Corked[] = [];
  let i = 0;
  while (i < batch.length) {
    const c = batch[i++];
    if (c.corkedAt > holdFrom) held.push(c);
    else c.flush();
    if (i % CHECK_EVERY === 0 && performance.now() - start > FLUSH_SLICE_MS) break;
  }
  // Streams corked meanwhile (none: flushing writes nothing new) would follow these.
  if (i < batch.length) {
    queue = held.concat(batch.slice(i), queue);
    armImmediate();
  } else if (held.length > 0) {
    queue = held.concat(queue);
    // The oldest held stream is first: it or the reader's backlog ending decides the wake-up.
    const wake = Math.min(held[0].corkedAt + HOLD_MAX_MS, behindUntil);
    timer = setTimeout(flushQueued, Math.max(1, Math.ceil(wake - performance.now())));
  }
}
