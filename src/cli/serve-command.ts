/**
 * `smg serve`: parse → plan and validate (nothing started yet) → `--dry-run` output, or spawn the
 * engines, run the gateway in-process and block until a signal (spec cli-and-api §2).
 * Exit codes: 0 normal, 1 launch/gateway error, 2 usage error, 128+signal.
 */
import { LaunchError } from '../launcher/launch-error.js';
import { createLogger, type Logger } from '../util/logger.js';
import { lastValue } from './flags/flag-def.js';
import { dryRunText } from './serve/dry-run.js';
import { SERVE_USAGE, serveHelp } from './serve/help.js';
import { prepareServe, type PreparedServe } from './serve/prepare.js';
import { parseServeArgs, type ServeConfig } from './serve/serve-args.js';
import { startServe, type ServeIo } from './serve/session.js';
import { tuneHeapGrowth } from '../util/heap-growth.js';

export interface ServeCommandIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** argparse style: usage line, then `<prog>: error: <message>`. */
function usageFailure(stderr: NodeJS.WritableStream, message: string): number {
  stderr.write(`${SERVE_USAGE}\nsmg serve: error: ${message}\n`);
  return 2;
}

/** The one logger of the run; `--router-log-level` / `--router-log-json` / `--router-log-dir` apply to all of it. */
export function serveLogger(config: ServeConfig, stdout: NodeJS.WritableStream): Logger {
  return createLogger({
    level: lastValue(config.router['log-level']),
    json: config.router['log-json'] === true,
    destination: stdout,
    logDir: lastValue(config.router['log-dir']) ?? null,
  });
}

/** Parse and prepare; returns an exit code when the run ends here (help, errors, dry run). */
export async function parseAndPrepare(
  argv: readonly string[],
  io: ServeCommandIo,
): Promise<{ kind: 'exit'; code: number } | { kind: 'run'; prep: PreparedServe; logger: Logger }> {
  const parsed = parseServeArgs(argv, { env: io.env });
  if (parsed.kind === 'help') {
    io.stdout.write(serveHelp());
    return { kind: 'exit', code: 0 };
  }
  if (parsed.kind === 'error') return { kind: 'exit', code: usageFailure(io.stderr, parsed.error.message) };

  const logger = serveLogger(parsed.config, io.stdout);
  let prep: PreparedServe;
  try {
    prep = await prepareServe(parsed.config, { env: io.env, log: (level, message) => logger[level](message) });
  } catch (err) {
    if (!(err instanceof LaunchError)) throw err;
    if (err.exitCode === 2) return { kind: 'exit', code: usageFailure(io.stderr, err.message) };
    logger.error(err.message);
    return { kind: 'exit', code: err.exitCode };
  }
  for (const line of prep.logLines) logger[line.level](line.message);
  if (parsed.config.dryRun) {
    io.stdout.write(dryRunText(prep));
    return { kind: 'exit', code: 0 };
  }
  return { kind: 'run', prep, logger };
}

export async function runServe(argv: string[], io: Partial<ServeCommandIo> = {}, serveIo: Partial<ServeIo> = {}): Promise<number> {
  const full: ServeCommandIo = { stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr, env: io.env ?? process.env };
  const step = await parseAndPrepare(argv, full);
  if (step.kind === 'exit') return step.code;

  const { prep, logger } = step;
  process.title = 'smg::router';
  tuneHeapGrowth();
  logger.info(
    `smg serve: ${prep.plans.length} ${prep.config.backend} engine(s) (zmq), model=${prep.config.model ?? 'engine default'}, gateway ${prep.gateway.host}:${prep.gateway.port}`,
  );
  try {
    const session = await startServe(prep, { logger, env: full.env, ...serveIo });
    return await session.done;
  } catch (err) {
    if (!(err instanceof LaunchError)) throw err;
    logger.error(err.message);
    return err.exitCode;
  }
}
