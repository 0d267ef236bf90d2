/**
 * Half-dead engine detection (ours; SMG has no such rule). A vLLM engine whose input thread died
 * keeps its process, its busy loop and its output socket: admitted requests finish, new ones are
 * never read, and nothing is reported (wire-vllm §3.9). Usually the thread's socket closes with it
 * and the input disconnect catches that; when the thread is stuck instead (or the socket stays
 * open), only a wire-level question tells.
 *
 * The question is a UTILITY call (wire-vllm §3.7) sent to one rank when that rank holds requests
 * and has sent nothing for `afterMs`. Any message from the rank ends the wait, the reply included;
 * no message within `timeoutMs` of the call means the rank is unresponsive. A busy engine sends
 * outputs all the time, so it is never asked; an idle one has nothing waiting, so it is never
 * asked either. Answering needs both the input thread (it decodes the call) and the busy loop (it
 * runs it between steps, so a healthy engine answers within one step).
 *
 * TokenSpeed has no UTILITY (wire-tokenspeed §3: unknown type bytes are dropped without a reply),
 * so its clients run without a probe and rely on the disconnect and the silence watchdog.
 *
 * Per message the cost is one map lookup and a store; the work happens on one lazily re-armed
 * timer that runs only while requests are in flight.
 */
import type { InputFrames } from './types.js';

export interface InputProbeSpec {
  /** The UTILITY method, for texts. */
  readonly method: string;
  /** The input frames (after the identity) of one call. */
  encode(callId: number): InputFrames;
}

export interface InputProbeTiming {
  /** Quiet time of a rank holding requests before it is asked. */
  afterMs: number;
  /** How long the answer may take. */
  timeoutMs: number;
}

export const DEFAULT_INPUT_PROBE_TIMING: Readonly<InputProbeTiming> = { afterMs: 2000, timeoutMs: 10_000 };

export interface UnresponsiveRank {
  rank: number;
  callId: number;
  /** Time since the rank last sent anything (or since requests started waiting on it). */
  quietMs: number;
  inFlight: number;
}

export interface InputProbeHost {
  /** In-flight request count per rank, read once per timer run. */
  inFlightByRank(): ReadonlyMap<number, number>;
  send(rank: number, frames: InputFrames): void;
  /** Called once; the probe is stopped by then. */
  unresponsive(detail: UnresponsiveRank): void;
  /** A call went out (for debug logs). */
  asked?(rank: number, callId: number): void;
}

interface RankSlot {
  /** Start of the current quiet spell: the last message from the rank, or when it became busy. */
  quietSince: number;
  busy: boolean;
  /** Our outstanding call to this rank; 0 = none. */
  callId: number;
  askedAt: number;
}

export class InputProbe {
  private readonly slots = new Map<number, RankSlot>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private nextCallId = 1;

  constructor(
    readonly spec: InputProbeSpec,
    readonly timing: Readonly<InputProbeTiming>,
    ranks: readonly number[],
    private readonly host: InputProbeHost,
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const r of ranks) this.slots.set(r, { quietSince: 0, busy: false, callId: 0, askedAt: 0 });
  }

  /** Any message from `rank` (batch, utility reply, wave notice): it is alive and talking. */
  heard(rank: number, at: number): void {
    const s = this.slots.get(rank);
    if (!s) return;
    s.quietSince = at;
    s.callId = 0;
  }

  /** A request was placed on `rank`. The first one on an idle rank starts its quiet spell. */
  submitted(rank: number, at: number): void {
    if (this.stopped) return;
    const s = this.slots.get(rank);
    if (!s) return;
    if (!s.busy) {
      s.busy = true;
      if (s.quietSince < at) s.quietSince = at;
    }
    if (!this.timer) this.arm(this.timing.afterMs);
  }

  /** True when `callId` is one this probe issued (its reply needs no further handling). */
  isOurCall(callId: number): boolean {
    return callId >= 1 && callId < this.nextCallId;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), Math.max(1, ms));
    this.timer.unref();
  }

  private check(): void {
    this.timer = null;
    if (this.stopped) return;
    const now = this.now();
    const inFlight = this.host.inFlightByRank();
    const { afterMs, timeoutMs } = this.timing;
    let nextDue = Infinity;
    for (const [rank, s] of this.slots) {
      const n = inFlight.get(rank) ?? 0;
      if (n === 0) {
        s.busy = false;
        s.callId = 0;
        continue;
      }
      if (!s.busy) {
        s.busy = true;
        if (s.quietSince < now) s.quietSince = now;
      }
      if (s.callId !== 0) {
        if (now - s.askedAt >= timeoutMs) {
          const detail = { rank, callId: s.callId, quietMs: now - s.quietSince, inFlight: n };
          this.stop();
          this.host.unresponsive(detail);
          return;
        }
        nextDue = Math.min(nextDue, s.askedAt + timeoutMs);
      } else if (now - s.quietSince >= afterMs) {
        s.callId = this.nextCallId++;
        s.askedAt = now;
        this.host.send(rank, this.spec.encode(s.callId));
        this.host.asked?.(rank, s.callId);
        nextDue = Math.min(nextDue, now + timeoutMs);
      } else {
        nextDue = Math.min(nextDue, s.quietSince + afterMs);
      }
    }
    if (nextDue !== Infinity) this.arm(nextDue - now);
  }
}
