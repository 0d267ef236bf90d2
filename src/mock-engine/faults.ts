/**
 * Failure injection. One fault per process, fired once, when its trigger is reached:
 * - `--mock-fault-on-request SUBSTR`: the first ADD whose request_id contains SUBSTR;
 * - otherwise `--mock-fault-after-tokens K` (default 1): once K tokens have been emitted across
 *   all ranks of the process (K = 0 fires as soon as serving starts).
 */
import type { FaultMode } from './mock-flags.js';

export interface FaultConfig {
  mode: FaultMode | null;
  afterTokens: number;
  onRequest: string | null;
}

export class FaultTrigger {
  private tokens = 0;
  private fired = false;

  constructor(
    private readonly cfg: FaultConfig,
    /** Runs the fault on behalf of the rank that tripped it. */
    private readonly fire: (mode: FaultMode, rank: number, why: string) => void,
  ) {}

  get armed(): boolean {
    return this.cfg.mode !== null && !this.fired;
  }

  /** Serving has started: K = 0 fires immediately. */
  onServing(rank: number): void {
    if (this.cfg.onRequest === null && this.cfg.afterTokens === 0) this.trip(rank, 'at startup');
  }

  onTokens(rank: number, n: number): void {
    this.tokens += n;
    if (this.cfg.onRequest === null && n > 0 && this.tokens >= this.cfg.afterTokens) {
      this.trip(rank, `after ${this.tokens} tokens`);
    }
  }

  onAdd(rank: number, requestId: string): void {
    if (this.cfg.onRequest !== null && requestId.includes(this.cfg.onRequest)) {
      this.trip(rank, `on request ${requestId}`);
    }
  }

  private trip(rank: number, why: string): void {
    if (!this.armed) return;
    this.fired = true;
    this.fire(this.cfg.mode as FaultMode, rank, why);
  }
}
