/**
 * A running `smg serve` (spec cli-and-api §2.9–§2.12): the gateway in-process with the engines as
 * startup workers, engines spawned and supervised in their own process groups, the startup
 * display, and one shutdown path for signals, fatal errors and programmatic stops (the demo):
 * drain the gateway → SIGTERM engine groups → 30 s → SIGKILL → exit code.
 *
 * Order (clone decision, §2.9 allows it): the gateway binds its HTTP and metrics ports *before*
 * the first engine is spawned, so a busy port fails with nothing started; the worker ports,
 * handshake ports and ipc paths were probed and claimed in prepare.ts. Engines dial the gateway's
 * handshake sockets whenever they are ready, so binding first costs them nothing.
 *
 * Nothing outlives the run: each engine gets a reaper (a SIGKILLed serve still takes its engines
 * along), the pid files and socket files are removed on every exit path, and when no engine can
 * complete its handshake serve stops with exit 1 and the engines' own last stderr lines.
 */
import type { GatewayHandle } from '../../gateway/server.js';
import { startGateway } from '../../gateway/server.js';
import { EngineGuard } from '../../launcher/engine-guard.js';
import { describeExit, type KillGroupFn, type SpawnFn } from '../../launcher/engine-process.js';
import type { EnginePlan } from '../../launcher/engine-plan.js';
import { LaunchError } from '../../launcher/launch-error.js';
import { startReaper, type StartReaperFn } from '../../launcher/reaper.js';
import { ShutdownController } from '../../launcher/shutdown-controller.js';
import { exitWithParentWanted, installSignalHandlers } from '../../launcher/signals.js';
import { killProcessGroup, spawnEngine } from '../../launcher/spawn-engine.js';
import { createStartupDisplay, handshakeText } from '../../launcher/startup-display.js';
import { SHUTDOWN_DEADLINE_MS, Supervisor, type EngineExitEvent } from '../../launcher/supervisor.js';
import { apiDeps } from '../../api/handlers.js';
import type { Logger } from '../../util/logger.js';
import { connectEngine } from '../../workers/connect.js';
import { EngineWatch, type HandshakeEvent, type HandshakeFailure } from './engine-watch.js';
import { halfDeadWatch } from './half-dead.js';
import type { PreparedServe } from './prepare.js';
import { StartupTracker, type EngineFailure } from './startup-tracker.js';

export interface ServeIo {
  readonly logger: Logger;
  /** Startup progress lines when no spinner runs (default: the logger at info). */
  readonly progress?: (line: string) => void;
  /** Where a spinner may draw (default stderr; only a real TTY gets one). */
  readonly displayStream?: NodeJS.WriteStream;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly spawn?: SpawnFn;
  readonly killGroup?: KillGroupFn;
  /** Default: one reaper process per engine group; null runs none (fake engines). */
  readonly startReaper?: StartReaperFn | null;
  /** Signal source (default process); null installs no signal handlers. */
  readonly proc?: NodeJS.Process | null;
}

export interface ServeSession {
  /** Where clients reach the gateway, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly gateway: GatewayHandle;
  readonly supervisor: Supervisor;
  readonly plans: readonly EnginePlan[];
  /** The exit code, once the gateway and every engine have stopped. */
  readonly done: Promise<number>;
  /** Normal stop: drain, stop engines, resolve `done` with `code`. */
  stop(code?: number): Promise<number>;
}

/** A URL a client can use: wildcard binds are reached over loopback. */
export function clientUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

export async function startServe(prep: PreparedServe, io: ServeIo): Promise<ServeSession> {
  const { logger } = io;
  const { config, plans } = prep;
  const log = (level: 'info' | 'warn' | 'error', message: string): void => logger[level](message);
  const progress = io.progress ?? ((line: string) => logger.info(line));
  const byUrl = new Map(plans.map((p) => [p.url, p]));

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  const guard = new EngineGuard({
    plans,
    claims: prep.claims,
    startReaper: io.startReaper === undefined ? startReaper : io.startReaper,
    // The same SIGTERM → SIGKILL deadline as a normal shutdown (§2.11).
    graceMs: SHUTDOWN_DEADLINE_MS,
    log,
  });

  // ---- start-up: one display line per engine from launch to handshake, then the gateway URL.
  const display = createStartupDisplay({ log: progress, stream: io.displayStream, env: io.env });
  let failStartup: (failures: readonly EngineFailure[]) => void = () => {};
  const startup = new StartupTracker({
    engines: plans.map((p) => p.index),
    display,
    rejoined: (index, n) => progress(handshakeText(index, n)),
    noEngine: (failures) => failStartup(failures),
  });
  const onHandshake = (ev: HandshakeEvent): void => {
    const plan = byUrl.get(ev.url);
    if (plan) startup.handshakeDone(plan.index, ev.contextLength);
  };
  const onHandshakeFailed = (f: HandshakeFailure): void => {
    const plan = byUrl.get(f.url);
    if (plan) startup.failed(plan.index, `did not complete its handshake: ${f.message}`);
  };
  const watch = new EngineWatch(connectEngine, onHandshake, onHandshakeFailed);

  const onEngineExit = (ev: EngineExitEvent): void => {
    // The supervisor has logged the exit code; take the worker out of rotation now.
    watch.engineExited(ev.url, `${ev.label} process (pid ${ev.pid ?? '?'}) ${describeExit(ev.exit)}`);
    if (ev.restartInMs === undefined) startup.failed(ev.index, `${describeExit(ev.exit)} before its handshake`);
  };

  const supervisor = new Supervisor({
    spawn: io.spawn ?? spawnEngine,
    killGroup: io.killGroup ?? killProcessGroup,
    log,
    prefixOutput: config.prefixEngineOutput,
    restartEngines: config.restartEngines,
    onEngineExit,
    onSpawn: guard.onSpawn,
  });

  const controller = new ShutdownController({ engines: supervisor, exit: (code) => resolveDone(code), log });
  // Handlers go in before anything starts: from here on a Ctrl-C must stop the engines too.
  const uninstall =
    io.proc === null
      ? () => {}
      : installSignalHandlers({
          controller,
          proc: io.proc,
          log,
          exitWithParent: (io.proc === undefined || io.proc === process) && exitWithParentWanted(io.env ?? process.env),
          // An uncaught error or a forced exit: no engine and no file may stay behind.
          killOnExit: () => {
            supervisor.killAll('SIGKILL');
            guard.cleanupSync();
          },
        });
  const halfDead = halfDeadWatch({
    engines: supervisor,
    restartEngines: config.restartEngines,
    labelOf: (url) => byUrl.get(url)?.label,
    log,
  });
  void done.then(() => {
    display.stop();
    halfDead.stop();
    uninstall();
    guard.cleanupSync();
  });

  let gateway: GatewayHandle;
  try {
    gateway = await startGateway(prep.gateway, { logger, deps: apiDeps(), connect: watch.connect });
  } catch (err) {
    display.stop();
    await controller.finish(1);
    throw new LaunchError(`Error starting router: ${(err as Error).message}`);
  }
  // A failed start-up closes the worker sockets without the drain: no client was ever told the
  // gateway is ready. The listeners go with the process.
  controller.setDrainGateway(
    () => gateway.close(),
    () => gateway.ctx.workers.close(),
  );
  const url = clientUrl(prep.gateway.host, gateway.port);
  if (controller.shuttingDown) {
    // A signal arrived while the gateway was binding; its shutdown no longer sees this gateway.
    await gateway.close();
    return { url, gateway, supervisor, plans, done, stop: async () => done };
  }
  gateway.ctx.workers.onEngineDeath(halfDead.onDeath);

  const reportNoEngine = async (failures: readonly EngineFailure[]): Promise<void> => {
    if (controller.shuttingDown) return;
    logger.error('No engine completed its startup handshake; stopping smg serve');
    for (const f of failures) {
      const plan = plans[f.index];
      const tail = await supervisor.stderrTail(f.index);
      const lines = tail.length === 0 ? ' (it wrote nothing to stderr)' : `; its last stderr lines:\n${tail.map((l) => `    ${l}`).join('\n')}`;
      logger.error(`${plan.label} (${plan.url}) ${f.reason}${lines}`);
    }
    await controller.finish(1, { drain: false });
  };
  failStartup = (failures) => void reportNoEngine(failures);

  supervisor.start(plans);
  for (const p of plans) display.launching(p.index, p.url);
  startup.gatewayReady(url);

  return {
    url,
    gateway,
    supervisor,
    plans,
    done,
    async stop(code = 0) {
      await controller.finish(code);
      return done;
    },
  };
}
