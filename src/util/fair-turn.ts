/**
 * Keeps bursts of request work from holding the event loop. Requests arrive in bursts (a batch of
 * streams ends together and their clients send the next requests at once; a prompt thread answers
 * a burst of prompts in one message drain), and each costs a few hundred µs of synchronous work:
 * 256 at once would stall every stream, timer and health probe for tens of ms.
 *
 * `fairTurn()` is called at the points where a request's next piece of work starts (arrival, and
 * its prompt's ids coming back). Within the first SLICE_MS of an event-loop turn it returns null
 * and the caller goes on at once (no promise: the common case costs a clock read). Past that, or
 * while others wait, the caller gets a promise and waits its turn, first come first served:
 * waiters are let go one per check-phase callback, so each one's work (its microtasks included)
 * has run before the next is let go, and a turn lets go at most SLICE_MS of them.
 */

/**
 * 1 ms, not the 0.5 ms of the reader and flush slices (engine/read-pressure.ts): at 0.5 ms short
 * requests cost 12-17 % more CPU (more of them wait for a later turn) and streams' loop delay did not
 * improve (alternating runs at C = 256 and at max_tokens 1, C = 64, on the 2-core box).
 */
const SLICE_MS = 1;

/** When the current turn's first caller came, or -1 (reset by a check-phase callback). */
let turnStart = -1;
/** The same for letting waiters go: when this check phase let its first one go. */
let releaseStart = -1;
const waiting: Array<() => void> = [];

const endTurn = () => {
  turnStart = -1;
};
const endReleaseTurn = () => {
  releaseStart = -1;
};

export function fairTurn(): Promise<void> | null {
  const now = performance.now();
  if (waiting.length === 0) {
    if (turnStart < 0) {
      turnStart = now;
      setImmediate(endTurn);
      return null;
    }
    if (now - turnStart < SLICE_MS) return null;
  }
  return laterTurn();
}

/**
 * Waits its turn among the request work, first come first served, always. For the slices of work
 * that is cut into pieces (a long body's scans, a long prompt's ids, a long prefix-index insert):
 * a plain setImmediate per piece gave each its own budget, so pieces of two long prompts, the
 * arrivals' work and the flush all ran in one check phase and added up to 6 ms turns (issue 30's
 * 131k-token scenario); here they share the SLICE_MS each turn lets go.
 */
export function laterTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    queueRelease();
  });
}

/**
 * Release callbacks queued at most: a turn lets go only what its slice allows (a few waiters of a
 * few hundred µs each), and every queued callback past the slice queues itself again for the next
 * turn. One per waiter made a burst of 1,000 arrivals queue ~1,000 immediates every turn for
 * hundreds of turns (scripts/arrivals-ab.ts heap samples: releaseOne's immediates outlived scavenges).
 */
const MAX_QUEUED_RELEASES = 32;
let queuedReleases = 0;

function queueRelease(): void {
  if (queuedReleases >= MAX_QUEUED_RELEASES || queuedReleases >= waiting.length) return;
  queuedReleases += 1;
  // One callback per waiter let go: callbacks queued together run back to back in one check
  // phase with microtasks drained between them, so each sees the time its predecessors took.
  setImmediate(releaseOne);
}

function releaseOne(): void {
  const now = performance.now();
  if (releaseStart < 0) {
    releaseStart = now;
    setImmediate(endReleaseTurn);
  } else if (now - releaseStart >= SLICE_MS) {
    // Queued from a check-phase callback: runs next turn, after endReleaseTurn.
    setImmediate(releaseOne);
    return;
  }
  queuedReleases -= 1;
  waiting.shift()?.();
  // Keep callbacks queued for those still waiting (they run from the next turn on).
  queueRelease();
}
