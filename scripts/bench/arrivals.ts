/**
 * Inter-token latency that does not depend on how the client happened to batch its reads.
 *
 * Tokens that reach the client in the same event-loop turn (one socket read carrying several SSE
 * frames, or one ZMQ message fanned out to streams) are one *arrival*. The gap between two
 * arrivals of a stream is spread evenly over the tokens of the later arrival, one ITL sample per
 * token, so mean ITL ≈ TPOT and the tail still shows stalls. The turn is detected with a lazily
 * scheduled setImmediate (one per loop turn that saw tokens; nothing spins while idle), so the
 * HTTP client and the in-process engine client are measured by the same rule.
 */
import type { Samples } from './stats.js';

let epoch = 0;
let scheduled = false;
const bump = () => {
  epoch += 1;
  scheduled = false;
};

/** The current event-loop turn's number. */
export function turn(): number {
  if (!scheduled) {
    scheduled = true;
    setImmediate(bump);
  }
  return epoch;
}

/** Per-request ITL accounting. */
export class ArrivalTracker {
  private burstTurn = -1;
  private burstTime = -1;
  private burstTokens = 0;
  private prevTime = -1;
  /** Distinct arrivals (event-loop turns that delivered tokens of this stream). */
  arrivals = 0;

  constructor(private readonly out: Samples) {}

  /** `tokens` arrived at `now` (performance.now()). */
  add(now: number, tokens: number): void {
    const t = turn();
    if (t === this.burstTurn) {
      this.burstTokens += tokens;
      return;
    }
    this.flush();
    this.arrivals += 1;
    this.burstTurn = t;
    this.burstTime = now;
    this.burstTokens = tokens;
  }

  /** Records the pending arrival; call once when the stream ends. */
  flush(): void {
    if (this.burstTokens > 0 && this.prevTime >= 0) {
      const gap = (this.burstTime - this.prevTime) / this.burstTokens;
      for (let i = 0; i < this.burstTokens; i++) this.out.push(gap);
    }
    // Tokens that came with the first one have no gap to report.
    if (this.burstTokens > 0) this.prevTime = this.burstTime;
    this.burstTokens = 0;
  }
}
