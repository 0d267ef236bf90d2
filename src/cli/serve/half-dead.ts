/**
 * A worker whose engine process is alive but whose connection died is treated as dead: its input
 * thread is gone or hung (wire-vllm §3.9), or it went silent. The gateway has already taken the
 * worker out of `ready` and rebound its sockets, but such an engine never dials back in. Under
 * `--restart-engines` the engine is stopped (SIGTERM, SIGKILL after a grace) and the supervisor's
 * normal restart-with-backoff brings up a fresh one; without it, the log says what happened and
 * what to do.
 *
 * Deaths the launcher itself declared (`cause: 'external'`, the process exited) need nothing. A
 * disconnect or sentinel is normally followed by the process exiting within milliseconds, so the
 * decision waits a moment and only acts on an engine that is still the same running process.
 */
import type { LogFn } from '../../launcher/engine-process.js';
import type { EngineDeathEvent, EngineDeathListener } from '../../workers/engine-deaths.js';

/** How long an engine whose connection died may take to exit by itself before it counts as half-dead. */
export const HALF_DEAD_CONFIRM_MS = 2000;

export interface HalfDeadEngines {
  runningPid(url: string): number | undefined;
  stopEngine(url: string): Promise<boolean>;
  readonly shuttingDown: boolean;
}

export interface HalfDeadOptions {
  readonly engines: HalfDeadEngines;
  readonly restartEngines: boolean;
  /** `engine-<index>` for a worker URL this serve launched; undefined for any other worker. */
  readonly labelOf: (url: string) => string | undefined;
  readonly log: LogFn;
  readonly confirmMs?: number;
}

export interface HalfDeadWatch {
  readonly onDeath: EngineDeathListener;
  /** Cancels pending checks (shutdown). */
  stop(): void;
}

export function halfDeadWatch(opts: HalfDeadOptions): HalfDeadWatch {
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  let stopped = false;

  const act = async (ev: EngineDeathEvent, label: string, pid: number): Promise<void> => {
    const what = `${label} (pid ${pid}, ${ev.url}) is still running, but its connection died (${ev.reason})`;
    if (!opts.restartEngines) {
      opts.log(
        'warn',
        `${what}; the gateway cannot use it until it is restarted. Stop it (kill ${pid}) and restart smg serve, ` +
          'or run smg serve with --restart-engines to have such engines restarted automatically',
      );
      return;
    }
    opts.log('warn', `${what}; stopping it so that it is restarted`);
    await opts.engines.stopEngine(ev.url);
  };

  const onDeath: EngineDeathListener = (ev) => {
    if (stopped || ev.cause === 'external' || pending.has(ev.url)) return;
    const label = opts.labelOf(ev.url);
    const pid = label === undefined ? undefined : opts.engines.runningPid(ev.url);
    if (label === undefined || pid === undefined) return;
    const timer = setTimeout(() => {
      pending.delete(ev.url);
      if (stopped || opts.engines.shuttingDown || opts.engines.runningPid(ev.url) !== pid) return;
      void act(ev, label, pid).catch((err: unknown) => opts.log('error', `stopping ${label} failed: ${(err as Error).message}`));
    }, opts.confirmMs ?? HALF_DEAD_CONFIRM_MS);
    timer.unref();
    pending.set(ev.url, timer);
  };

  return {
    onDeath,
    stop() {
      stopped = true;
      for (const t of pending.values()) clearTimeout(t);
      pending.clear();
    },
  };
}
