/**
 * Engine liveness helpers that need state: the silence watchdog and the decode-error run counter.
 * Which events count and what death means live in the engine client.
 */

/**
 * Fires when nothing arrived from the engines for `timeoutMs` while requests are in flight; an
 * idle engine is never declared dead. One lazily re-armed timer instead of a reset per message:
 * `touch()` only stores a timestamp, so the per-batch cost is a clock read.
 */
export class SilenceWatchdog {
  private last = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    readonly timeoutMs: number,
    private readonly hasInFlight: () => boolean,
    private readonly onSilence: (silentForMs: number) => void,
  ) {}

  /** Any engine event (batch, decode error, abort) restarts the silence window. */
  touch(): void {
    this.last = performance.now();
  }

  /** `touch()` with a clock value the caller already read. */
  touchAt(now: number): void {
    this.last = now;
  }

  /**
   * Call when the in-flight count goes from 0 to 1: the window starts now, not at the last event
   * of a long idle period.
   */
  activate(): void {
    if (this.stopped) return;
    this.last = performance.now();
    if (!this.timer) this.arm(this.timeoutMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), Math.max(1, ms));
    // The watchdog must never be what keeps a process alive.
    this.timer.unref();
  }

  private check(): void {
    this.timer = null;
    if (this.stopped || !this.hasInFlight()) return;
    const silent = performance.now() - this.last;
    if (silent >= this.timeoutMs) this.onSilence(silent);
    else this.arm(this.timeoutMs - silent);
  }
}

/** SMG's MAX_CONSECUTIVE_DECODE_ERRORS: one garbled message is noise, three in a row is a dead wire. */
export const MAX_CONSECUTIVE_DECODE_ERRORS = 3;

export class DecodeErrorRun {
  private count = 0;

  /** Returns true when this error makes the run fatal. */
  record(): boolean {
    this.count += 1;
    return this.count >= MAX_CONSECUTIVE_DECODE_ERRORS;
  }

  reset(): void {
    this.count = 0;
  }
}
