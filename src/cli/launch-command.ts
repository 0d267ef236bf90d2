/**
 * `smg launch`: parse, validate, start the gateway, block until SIGINT/SIGTERM, drain, and return
 * the exit code (0 after --help, 1 startup/config error, 2 usage error, 128+signal after a signal).
 * Signals go through the same ShutdownController as `smg serve`, with no engines to stop.
 */
import { ShutdownController } from '../launcher/shutdown-controller.js';
import { exitWithParentWanted, GATEWAY_SIGNALS, installSignalHandlers } from '../launcher/signals.js';
import { apiDeps } from '../api/handlers.js';
import { startGateway, type GatewayHandle } from '../gateway/server.js';
import { configWarnings, validateGatewayConfig } from '../gateway/validate-config.js';
import { createLogger } from '../util/logger.js';
import { parseLaunchArgv } from './launch/args.js';
import { tuneHeapGrowth } from '../util/heap-growth.js';

export interface LaunchIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where SIGINT/SIGTERM come from (process by default; tests pass an EventEmitter). */
  signals: NodeJS.EventEmitter;
}

export async function runLaunch(argv: string[], io: Partial<LaunchIo> = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;

  const parsed = parseLaunchArgv(argv);
  if (parsed.kind === 'help') {
    stdout.write(parsed.text);
    return 0;
  }
  if (parsed.kind === 'error') {
    stderr.write(`error: ${parsed.message}\n\nFor more information, try 'smg launch --help'.\n`);
    return 2;
  }
  const config = parsed.config;
  let logger;
  try {
    logger = createLogger({ level: config.logLevel, json: config.logJson, destination: stdout, logDir: config.logDir });
  } catch (err) {
    stderr.write(`error: cannot use --log-dir ${config.logDir}: ${(err as Error).message}\n`);
    return 1;
  }

  const invalid = validateGatewayConfig(config);
  if (invalid) {
    logger.error(`Configuration validation failed: ${invalid}`);
    return 1;
  }
  for (const w of configWarnings(config)) logger.warn(w);

  process.title = 'smg::router';
  tuneHeapGrowth();
  logger.info(
    `smg launch: ${config.workerUrls.length} startup worker(s), backend=${config.backend ?? 'unset'}, model=${config.modelPath ?? 'unset'}, policy=${config.policy}`,
  );

  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const controller = new ShutdownController({ exit, log: (level, message) => logger[level](message) });
  // Handlers go in before the listeners bind so an early Ctrl-C still drains cleanly.
  // Only a real process has a parent to watch (tests pass an EventEmitter as the signal source).
  const uninstall = installSignalHandlers({
    controller,
    signals: GATEWAY_SIGNALS,
    proc: io.signals,
    exitWithParent: io.signals === undefined && exitWithParentWanted(process.env),
    log: (level, message) => logger[level](message),
  });

  try {
    let gateway: GatewayHandle;
    try {
      gateway = await startGateway(config, { logger, deps: apiDeps() });
    } catch (err) {
      logger.error(`Error starting router: ${(err as Error).message}`);
      return 1;
    }
    controller.setDrainGateway(() => gateway.close());
    // A signal while the gateway was binding has already exited; this gateway still has to close.
    if (controller.shuttingDown) await gateway.close();
    return await exited;
  } finally {
    uninstall();
  }
}
