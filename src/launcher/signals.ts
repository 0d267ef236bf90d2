/**
 * The thin wiring of process signals onto the ShutdownController, for both commands.
 * SIGHUP is in serve's set: with engines in their own process groups, a closed terminal would
 * otherwise leave them running as orphans (ecosystem §1.4). `smg launch` keeps SIGINT/SIGTERM.
 */
import type { ShutdownController } from './shutdown-controller.js';

export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
export const GATEWAY_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export interface SignalWiring {
  readonly controller: Pick<ShutdownController, 'onSignal'>;
  /** Default SHUTDOWN_SIGNALS. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Last-resort sync kill of engines still running when the process exits any other way. */
  readonly killOnExit?: () => void;
  /** Where signals come from: the process by default, an EventEmitter in tests. */
  readonly proc?: NodeJS.EventEmitter;
}

/** Install handlers once; returns a function that removes them again. */
export function installSignalHandlers(wiring: SignalWiring): () => void {
  const proc = wiring.proc ?? process;
  const handlers = (wiring.signals ?? SHUTDOWN_SIGNALS).map((signal) => {
    const handler = (): void => {
      void wiring.controller.onSignal(signal);
    };
    proc.on(signal, handler);
    return [signal, handler] as const;
  });
  const killOnExit = wiring.killOnExit;
  const onExit = killOnExit ? (): void => killOnExit() : undefined;
  if (onExit) proc.on('exit', onExit);
  return () => {
    for (const [signal, handler] of handlers) proc.off(signal, handler);
    if (onExit) proc.off('exit', onExit);
  };
}
