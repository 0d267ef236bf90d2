/**
 * Engine deaths as the registry reports them to whoever supervises engine processes. The gateway
 * rebinds a dead worker's sockets by itself; what it cannot do is restart the engine, and some
 * deaths leave the engine process running (its input thread died or hangs, its busy loop is
 * stuck). Such an engine never dials back in, so the supervisor must kill it for
 * `--restart-engines` to bring up a fresh one.
 */
import type { EngineError, EngineErrorKind } from '../engine/client-types.js';
import { deathCauseOf, type EngineDeathCause } from '../engine/engine-death.js';
import type { Logger } from '../util/logger.js';

export interface EngineDeathEvent {
  readonly workerId: string;
  /** The worker URL (`ipc://…`), the key the launcher knows its engine processes by. */
  readonly url: string;
  /** The text the in-flight requests got. */
  readonly reason: string;
  readonly kind: EngineErrorKind;
  /** `external` when the death was declared from outside the client (the launcher saw an exit). */
  readonly cause: EngineDeathCause | 'external';
}

export type EngineDeathListener = (event: EngineDeathEvent) => void;

export class EngineDeathFeed {
  private readonly listeners = new Set<EngineDeathListener>();

  /** Returns the unsubscribe function. */
  subscribe(listener: EngineDeathListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(workerId: string, url: string, err: EngineError, logger: Logger): void {
    const event: EngineDeathEvent = { workerId, url, reason: err.message, kind: err.kind, cause: deathCauseOf(err) };
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (e) {
        logger.error(`engine death listener for ${url} threw: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}
