/**
 * How long a stream's 200 may wait to leave with its first frames. Flushing the head the moment a
 * generation starts (as vLLM's server does) costs a socket write of its own, and a short request
 * then pays two writes where one would do: head, frames and end together. A held head goes out
 * with the stream's first event, or alone once HEAD_HOLD_MS has passed, so clients and proxies
 * still see the 200 promptly while a long prefill runs.
 *
 * Every hold lasts the same time, so expiry order is arrival order: one FIFO and one timer serve
 * every stream, instead of a timer per request.
 */

/** Measured on the 2-core box: a short request's first event comes well inside this at C = 64. */
export const HEAD_HOLD_MS = 50;

export interface HeldHead {
  /** Sends the head now if it is still held (no-op otherwise). */
  releaseHead(): void;
}

/**
 * One hold. Its owner lets go of it (`letGo`) as soon as the head has left another way, so the
 * queue does not keep a finished stream's whole object graph alive for the rest of HEAD_HOLD_MS:
 * at ~5,000 short requests/s that kept ~250-576 finished requests reachable, each scavenge (every
 * ~80 ms) copied and then promoted them (1.5 MB per scavenge, 90 % of its survivors), and
 * mark-compacts of the promoted garbage followed (heap snapshot retainer path, --trace-gc-nvp).
 */
export interface Hold {
  head: HeldHead | null;
  readonly until: number;
}

/** The head left with the stream's frames (or the stream ended): the queue forgets its owner. */
export function letGo(hold: Hold): void {
  hold.head = null;
}

let queue: Hold[] = [];
let first = 0;
let timer: NodeJS.Timeout | null = null;

/** Holds `head` for at most HEAD_HOLD_MS; its owner releases it earlier when a frame is ready. */
export function holdHead(head: HeldHead): Hold {
  const hold: Hold = { head, until: performance.now() + HEAD_HOLD_MS };
  queue.push(hold);
  if (timer === null) arm(HEAD_HOLD_MS);
  return hold;
}

function arm(ms: number): void {
  timer = setTimeout(expire, Math.max(1, Math.ceil(ms)));
  // A held head never keeps the process alive: its response does, while it is open.
  timer.unref();
}

function expire(): void {
  timer = null;
  const now = performance.now();
  while (first < queue.length && queue[first].until <= now) queue[first++].head?.releaseHead();
  if (first === queue.length) {
    queue = [];
    first = 0;
    return;
  }
  if (first > 1024) {
    queue = queue.slice(first);
    first = 0;
  }
  arm(queue[first].until - now);
}
