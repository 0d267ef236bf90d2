/**
 * A per-worker circuit breaker with SMG's states and defaults (smg-project/smg
 * model_gateway/src/worker/circuit_breaker.rs; flags in model_gateway/src/main.rs: failure
 * threshold 10, success threshold 3, timeout 60 s, window 120 s).
 *
 *   closed    → open       after `failureThreshold` consecutive failures (a failure older than
 *                          the window restarts the count: that is what the window bounds)
 *   open      → half_open  once `timeoutMs` has passed since it opened
 *   half_open → closed     after `successThreshold` consecutive successes
 *   half_open → open       on any failure
 *
 * Ours, not SMG's: a half-open breaker admits one trial request at a time (the probe) instead of
 * all traffic, so a worker that is still broken costs one request, not a burst.
 */

export type BreakerState = 'closed' | 'open' | 'half_open';

/** The gauge value SMG exports for each state (smg_worker_cb_state). */
export const BREAKER_STATE_CODE: Record<BreakerState, number> = { closed: 0, open: 1, half_open: 2 };

export interface BreakerConfig {
  failureThreshold: number;
  successThreshold: number;
  timeoutMs: number;
  windowMs: number;
}

export interface BreakerEvents {
  transition?(from: BreakerState, to: BreakerState): void;
  outcome?(outcome: 'success' | 'failure'): void;
}

export class CircuitBreaker {
  private _state: BreakerState = 'closed';
  private changedAt: number;
  private lastFailureAt = 0;
  consecutiveFailures = 0;
  consecutiveSuccesses = 0;
  /** A half-open trial request is in flight. */
  private probing = false;

  constructor(
    private readonly config: BreakerConfig,
    private readonly events: BreakerEvents = {},
    private readonly now: () => number = Date.now,
  ) {
    this.changedAt = now();
  }

  get state(): BreakerState {
    if (this._state === 'open' && this.now() - this.changedAt >= this.config.timeoutMs) this.moveTo('half_open');
    return this._state;
  }

  /** Whether selection may pick this worker now (closed, or half-open with no trial in flight). */
  get available(): boolean {
    const s = this.state;
    return s === 'closed' || (s === 'half_open' && !this.probing);
  }

  /** The request picked this worker: in half-open it becomes the trial. */
  admit(): void {
    if (this.state === 'half_open') this.probing = true;
  }

  record(success: boolean): void {
    this.probing = false;
    this.events.outcome?.(success ? 'success' : 'failure');
    const now = this.now();
    if (success) {
      this.consecutiveFailures = 0;
      this.consecutiveSuccesses += 1;
      if (this._state === 'half_open' && this.consecutiveSuccesses >= this.config.successThreshold) this.moveTo('closed');
      return;
    }
    if (this.lastFailureAt !== 0 && now - this.lastFailureAt > this.config.windowMs) this.consecutiveFailures = 0;
    this.lastFailureAt = now;
    this.consecutiveSuccesses = 0;
    this.consecutiveFailures += 1;
    const s = this.state;
    if (s === 'half_open' || (s === 'closed' && this.consecutiveFailures >= this.config.failureThreshold)) this.moveTo('open');
  }

  /** The trial ended without an outcome (client gone before the upstream answered). */
  abandon(): void {
    this.probing = false;
  }

  private moveTo(to: BreakerState): void {
    const from = this._state;
    if (from === to) return;
    this._state = to;
    this.changedAt = this.now();
    this.probing = false;
    if (to !== 'open') this.consecutiveFailures = 0;
    this.consecutiveSuccesses = 0;
    this.events.transition?.(from, to);
  }
}

/** A worker's breaker, logging its transitions; null when breakers are off. */
export function breakerFor(
  url: string,
  config: BreakerConfig | null,
  log: { info(msg: string): void },
  events: BreakerEvents,
): CircuitBreaker | null {
  if (config === null) return null;
  return new CircuitBreaker(config, {
    transition: (from, to) => {
      log.info(`Circuit breaker of ${url}: ${from} -> ${to}`);
      events.transition?.(from, to);
    },
    outcome: events.outcome,
  });
}
