/**
 * Inter-token latency that does not depend on how the client happened to batch its reads.
 *
 * Tokens that reach the client in the same event-loop turn (one socket read carrying several SSE
 * frames, or one ZMQ message fanned out to streams) are one *arrival*. The gap between two
 * arrivals of a stream is spread evenly over the tokens of the later arrival, one ITL sample per
 * token, so mean ITL ≈ TPOT and the tail shows stalls longer than the engine's own pace. A stall
 * while the engine keeps producing (the tokens then arrive in one burst) is spread away; the
 * optional per-arrival gap (GapSink.arrivalGaps) keeps it whole. The turn is detected with a lazily
 * scheduled setImmediate (one per loop turn that saw tokens; nothing spins while idle), so the
 * HTTP client and the in-process engine client are measured by the same rule.
 */
import type { Samples } from './stats.js';

/**
 * Where a request's inter-token gaps go. Read at each flush, not at request start, so a scenario
 * can swap `gaps` between windows while long streams keep running (a gap counts in the window
 * that saw its later arrival).
 */
export interface GapSink {
  gaps: Samples;
  /** When set, also one sample per arrival: the whole gap since the stream's previous arrival. */
  arrivalGaps?: Samples;
  /** Called when a stream's first token arrives (the paced phase waits for all of them). */
  onFirstToken?: () => void;
}

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

  constructor(private readonly sink: GapSink) {}

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
      const out = this.sink.gaps;
      for (let i = 0; i < this.burstTokens; i++) out.push(gap);
      this.sink.arrivalGaps?.push(this.burstTime - this.prevTime);
    }
    // Tokens that came with the first one have no gap to report.
    if (this.burstTokens > 0) this.prevTime = this.burstTime;
    this.burstTokens = 0;
  }
}
