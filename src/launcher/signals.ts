/**
 * The thin, untested-by-design wiring of real process signals onto the ShutdownController.
 * SIGHUP is included: with engines in their own process groups, a closed terminal would otherwise
 * leave them running as orphans (ecosystem §1.4).
 */
import type { ShutdownController } from './shutdown-controller.js';

export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface SignalWiring {
  readonly controller: ShutdownController;
  /** Last-resort sync kill of engines still running when the process exits any other way. */
  readonly killOnExit?: () => void;
  readonly proc?: NodeJS.Process;
}

/** Install handlers once; returns a function that removes them again. */
export function installSignalHandlers(wiring: SignalWiring): () => void {
  const proc = wiring.proc ?? process;
  const handlers = SHUTDOWN_SIGNALS.map((signal) => {
    const handler = (): void => {
      void wiring.controller.onSignal(signal);
    };
    proc.on(signal, handler);
    return [signal, handler] as const;
  });
  const onExit = (): void => wiring.killOnExit?.();
  proc.on('exit', onExit);
  return () => {
    for (const [signal, handler] of handlers) proc.off(signal, handler);
    proc.off('exit', onExit);
  };
}
