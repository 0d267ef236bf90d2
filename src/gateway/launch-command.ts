/**
 * `smg launch`: parse, validate, start the gateway, block until SIGINT/SIGTERM, drain, and return
 * the exit code (0 normal, 1 startup/config error, 2 usage error, 128+signal after a signal).
 */
import { createLogger } from '../util/logger.js';
import { parseLaunchArgv } from './launch-args.js';
import { apiDeps } from '../api/handlers.js';
import { startGateway, type GatewayHandle } from './server.js';
import { configWarnings, validateGatewayConfig } from './validate-config.js';

export interface LaunchIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where SIGINT/SIGTERM come from (process by default; tests pass an EventEmitter). */
  signals: NodeJS.EventEmitter;
}

const SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
type SignalName = keyof typeof SIGNALS;

export async function runLaunch(argv: string[], io: Partial<LaunchIo> = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const signals = io.signals ?? process;

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
  const logger = createLogger({ level: config.logLevel, json: config.logJson, destination: stdout });

  const invalid = validateGatewayConfig(config);
  if (invalid) {
    logger.error(`Configuration validation failed: ${invalid}`);
    return 1;
  }
  for (const w of configWarnings(config)) logger.warn(w);

  process.title = 'smg::router';
  logger.info(
    `smg launch: ${config.workerUrls.length} startup worker(s), backend=${config.backend ?? 'unset'}, model=${config.modelPath ?? 'unset'}, policy=${config.policy}`,
  );

  // Handlers go in before the listeners bind so an early Ctrl-C still drains cleanly.
  let handle: GatewayHandle | null = null;
  let stopping = false;
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const onSignal = (name: SignalName) => {
    const code = 128 + SIGNALS[name];
    if (stopping) {
      logger.warn(`Received ${name} again; exiting without waiting for the drain`);
      exit(code);
      return;
    }
    stopping = true;
    logger.info(`Received ${name}, shutting down…`);
    if (!handle) {
      exit(code);
      return;
    }
    handle.close().then(
      () => exit(code),
      (err: unknown) => {
        logger.error(`Error during shutdown: ${(err as Error).message}`);
        exit(code);
      },
    );
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  signals.on('SIGINT', onInt);
  signals.on('SIGTERM', onTerm);

  try {
    try {
      handle = await startGateway(config, { logger, deps: apiDeps() });
    } catch (err) {
      logger.error(`Error starting router: ${(err as Error).message}`);
      return 1;
    }
    if (stopping) await handle.close();
    return await exited;
  } finally {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
  }
}
