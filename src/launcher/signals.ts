/**
 * The thin wiring of process signals onto the ShutdownController, for both commands.
 * SIGHUP is in serve's set: with engines in their own process groups, a closed terminal would
 * otherwise leave them running as orphans (ecosystem §1.4). `smg launch` keeps SIGINT/SIGTERM.
 */
import type { LogFn } from './engine-process.js';
import { isRunning, type ProcessRef } from './process-identity.js';
import { wrapperAncestors } from './wrapper-ancestors.js';
import type { ShutdownController } from './shutdown-controller.js';

export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
export const GATEWAY_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** How often the parent watch looks at the parent pid (getppid is a cheap syscall). */
export const PARENT_POLL_MS = 250;

/**
 * Whether to treat the parent's exit as SIGTERM. `npx smg …` runs smg under `sh -c` under npm;
 * npm passes a SIGTERM to the shell, which dies without passing it on, and smg would run on as an
 * orphan holding its ports. npm, yarn and pnpm all set `npm_execpath` for what they run; outside
 * them smg keeps running when its parent exits (`nohup`, `setsid`, a shell that backgrounded it).
 * `SMG_EXIT_WITH_PARENT=1|0` forces either way.
 */
export function exitWithParentWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  const forced = env.SMG_EXIT_WITH_PARENT;
  if (forced === '1' || forced === 'true') return true;
  if (forced === '0' || forced === 'false') return false;
  return Boolean(env.npm_execpath);
}

export interface SignalWiring {
  readonly controller: Pick<ShutdownController, 'onSignal' | 'shuttingDown'>;
  /** Default SHUTDOWN_SIGNALS. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Last-resort sync kill of engines still running when the process exits any other way. */
  readonly killOnExit?: () => void;
  /** Where signals come from: the process by default, an EventEmitter in tests. */
  readonly proc?: NodeJS.EventEmitter;
  /** Shut down as on SIGTERM when the parent process exits (see exitWithParentWanted). */
  readonly exitWithParent?: boolean;
  /** The parent pid now (default process.ppid); tests pass a fake. */
  readonly ppid?: () => number;
  /**
   * The processes up to the package manager that started smg (wrapper-ancestors.ts; default read
   * from /proc at install): any of them gone means shut down, a SIGKILLed npm included.
   */
  readonly ancestors?: readonly ProcessRef[];
  readonly log?: LogFn;
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
  const stopWatch = wiring.exitWithParent ? watchParent(wiring) : () => {};
  return () => {
    for (const [signal, handler] of handlers) proc.off(signal, handler);
    if (onExit) proc.off('exit', onExit);
    stopWatch();
  };
}

/**
 * Polls the parent pid; once it changes (the parent died and we were reparented) the shutdown
 * runs as for SIGTERM — unless one already runs (a Ctrl-C reached both npm and smg), which must
 * not turn into a "second signal" that skips the drain.
 */
function watchParent(wiring: SignalWiring): () => void {
  const ppid = wiring.ppid ?? (() => process.ppid);
  const parent = ppid();
  // The direct parent is watched by pid change above; the ones above it by their identity.
  const above = (wiring.ancestors ?? wrapperAncestors(process.env)).filter((a) => a.pid !== parent);
  const timer = setInterval(() => {
    const now = ppid();
    let why: string | null = null;
    if (now !== parent) why = `Parent process (pid ${parent}) exited`;
    else {
      const gone = above.find((a) => !isRunning(a));
      if (gone) why = `Ancestor process (pid ${gone.pid}, the package manager that started smg or a wrapper under it) exited`;
    }
    if (why === null) return;
    clearInterval(timer);
    if (wiring.controller.shuttingDown) return;
    wiring.log?.('warn', `${why}; shutting down as on SIGTERM`);
    void wiring.controller.onSignal('SIGTERM');
  }, PARENT_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
