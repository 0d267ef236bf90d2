/**
 * A running `smg serve` (spec cli-and-api §2.9–§2.12): engines spawned and supervised in their own
 * process groups, the gateway in-process with the engines as startup workers, the startup display,
 * and one shutdown path for signals, fatal errors and programmatic stops (the demo):
 * drain the gateway → SIGTERM engine groups → 30 s → SIGKILL → exit code.
 */
import type { GatewayHandle } from '../../gateway/server.js';
import { startGateway } from '../../gateway/server.js';
import { describeExit, type KillGroupFn, type SpawnFn } from '../../launcher/engine-process.js';
import type { EnginePlan } from '../../launcher/engine-plan.js';
import { LaunchError } from '../../launcher/launch-error.js';
import { ShutdownController } from '../../launcher/shutdown-controller.js';
import { installSignalHandlers } from '../../launcher/signals.js';
import { killProcessGroup, spawnEngine } from '../../launcher/spawn-engine.js';
import { createStartupDisplay, handshakeText } from '../../launcher/startup-display.js';
import { Supervisor, type EngineExitEvent } from '../../launcher/supervisor.js';
import { apiDeps } from '../../api/handlers.js';
import type { Logger } from '../../util/logger.js';
import { connectEngine } from '../../workers/connect.js';
import { EngineWatch, type HandshakeEvent } from './engine-watch.js';
import type { PreparedServe } from './prepare.js';

export interface ServeIo {
  readonly logger: Logger;
  /** Startup progress lines when no spinner runs (default: the logger at info). */
  readonly progress?: (line: string) => void;
  /** Where a spinner may draw (default stderr; only a real TTY gets one). */
  readonly displayStream?: NodeJS.WriteStream;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly spawn?: SpawnFn;
  readonly killGroup?: KillGroupFn;
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
  const progress = io.progress ?? ((line: string) => logger.info(line));
  const byUrl = new Map(plans.map((p) => [p.url, p]));

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  // ---- startup display: one line per engine from launch to handshake, then the gateway URL.
  const display = createStartupDisplay({ log: progress, stream: io.displayStream, env: io.env });
  const pending = new Set(plans.map((p) => p.index));
  let gatewayUrl: string | null = null;
  let startupOver = false;
  const maybeStartupOver = (): void => {
    if (startupOver || gatewayUrl === null || pending.size > 0) return;
    startupOver = true;
    display.gatewayReady(gatewayUrl);
    display.stop();
  };
  const onHandshake = (ev: HandshakeEvent): void => {
    const plan = byUrl.get(ev.url);
    if (!plan) return;
    if (pending.delete(plan.index)) {
      display.handshakeDone(plan.index, ev.contextLength);
      maybeStartupOver();
    } else {
      // A restarted engine rejoined its worker.
      progress(handshakeText(plan.index, ev.contextLength));
    }
  };
  const watch = new EngineWatch(connectEngine, onHandshake);

  const onEngineExit = (ev: EngineExitEvent): void => {
    // The supervisor has logged the exit code; take the worker out of rotation now.
    watch.engineExited(ev.url, `${ev.label} process (pid ${ev.pid ?? '?'}) ${describeExit(ev.exit)}`);
    if (ev.restartInMs === undefined && pending.delete(ev.index)) {
      display.failed(ev.index, `${describeExit(ev.exit)} before its handshake`);
      maybeStartupOver();
    }
  };

  const supervisor = new Supervisor({
    spawn: io.spawn ?? spawnEngine,
    killGroup: io.killGroup ?? killProcessGroup,
    log: (level, message) => logger[level](message),
    prefixOutput: config.prefixEngineOutput,
    restartEngines: config.restartEngines,
    onEngineExit,
  });

  const controller = new ShutdownController({
    engines: supervisor,
    exit: (code) => resolveDone(code),
    log: (level, message) => logger[level](message),
  });
  // Handlers go in before the first spawn: from here on a Ctrl-C must stop the engines too.
  const uninstall =
    io.proc === null
      ? () => {}
      : installSignalHandlers({ controller, killOnExit: () => supervisor.killAll('SIGKILL'), proc: io.proc });
  void done.then(() => {
    display.stop();
    uninstall();
  });

  supervisor.start(plans);
  for (const p of plans) display.launching(p.index, p.url);

  let gateway: GatewayHandle;
  try {
    gateway = await startGateway(prep.gateway, { logger, deps: apiDeps(), connect: watch.connect });
  } catch (err) {
    display.stop();
    await controller.finish(1);
    throw new LaunchError(`Error starting router: ${(err as Error).message}`);
  }
  controller.setDrainGateway(() => gateway.close());
  const url = clientUrl(prep.gateway.host, gateway.port);
  if (controller.shuttingDown) {
    // A signal arrived while the gateway was binding; its shutdown no longer sees this gateway.
    await gateway.close();
  } else {
    gatewayUrl = url;
    maybeStartupOver();
  }

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
