/**
 * Start-up of `smg serve`, engine by engine: launching → handshake done, or failed (exited before
 * its handshake and not restarted, or its handshake failed for good: the stage timeout passed, the
 * sockets could not be bound). Drives the startup display, and decides the one fatal case: no
 * engine completed its handshake and none can any more. SMG prints its banner and runs on with
 * zero engines there; serve instead stops with exit 1 and the engines' own last stderr lines.
 *
 * Once one engine has completed its handshake start-up is over for the fatal check: a replica
 * that fails later is reported (display, log) while the others serve.
 */
import type { StartupDisplay } from '../../launcher/startup-display.js';

export interface EngineFailure {
  readonly index: number;
  /** `exited with code 1 before its handshake`, `did not complete its handshake: …` */
  readonly reason: string;
}

export interface StartupTrackerOptions {
  readonly engines: readonly number[];
  readonly display: StartupDisplay;
  /** Handshake of an engine that already had one (a restarted engine rejoined). */
  readonly rejoined: (index: number, contextLength: number) => void;
  /** No engine completed its handshake and none is left that could. Called at most once. */
  readonly noEngine: (failures: readonly EngineFailure[]) => void;
}

export class StartupTracker {
  private readonly pending: Set<number>;
  private readonly failures = new Map<number, EngineFailure>();
  private handshakes = 0;
  private gatewayUrl: string | null = null;
  private over = false;
  private gaveUp = false;

  constructor(private readonly opts: StartupTrackerOptions) {
    this.pending = new Set(opts.engines);
  }

  /** True once at least one engine completed its handshake. */
  get anyHandshake(): boolean {
    return this.handshakes > 0;
  }

  gatewayReady(url: string): void {
    this.gatewayUrl = url;
    this.maybeOver();
  }

  handshakeDone(index: number, contextLength: number): void {
    this.handshakes += 1;
    this.failures.delete(index);
    if (this.pending.delete(index)) {
      this.opts.display.handshakeDone(index, contextLength);
      this.maybeOver();
    } else {
      this.opts.rejoined(index, contextLength);
    }
  }

  /** The engine will not come back by itself (no restart), or its handshake failed for good. */
  failed(index: number, reason: string): void {
    if (!this.pending.delete(index)) return;
    this.failures.set(index, { index, reason });
    this.opts.display.failed(index, reason);
    if (this.handshakes === 0 && this.pending.size === 0 && !this.gaveUp) {
      this.gaveUp = true;
      this.opts.display.stop();
      this.opts.noEngine([...this.failures.values()].sort((a, b) => a.index - b.index));
      return;
    }
    this.maybeOver();
  }

  private maybeOver(): void {
    if (this.over || this.gaveUp || this.gatewayUrl === null || this.pending.size > 0) return;
    this.over = true;
    this.opts.display.gatewayReady(this.gatewayUrl);
    this.opts.display.stop();
  }
}
