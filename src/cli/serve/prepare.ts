/**
 * Everything `smg serve` decides before it starts anything (spec cli-and-api §2.9 steps 3–4 and
 * §2.8): worker ports, per-engine plans (handshake collision, GPU slices), and the validated
 * gateway configuration. `--dry-run` stops here; a failure here leaves no process behind.
 *
 * A real start also settles the socket directory first: created (0700) or checked, engines and
 * files left by a serve that died are stopped and removed, and each worker port is claimed with
 * a pid file so that no other live serve can pick it (worker-port-check.ts). The claims travel
 * with the result and must be released by whoever ends the run.
 */
import type { GatewayConfig } from '../../gateway/config.js';
import { IpcPathError, prepareSocketDir } from '../../engine/ipc-path.js';
import type { LogFn } from '../../launcher/engine-process.js';
import { findWorkerPorts, zmqSocketDir, type FindPortsOptions } from '../../launcher/ports.js';
import { planEngines, type EnginePlan } from '../../launcher/engine-plan.js';
import { LaunchError } from '../../launcher/launch-error.js';
import { sweepStaleClaims } from '../../launcher/stale-engines.js';
import { STOP_ENGINE_GRACE_MS } from '../../launcher/supervisor.js';
import { WorkerClaims } from '../../launcher/worker-claims.js';
import { workerPortCheck } from '../../launcher/worker-port-check.js';
import type { LogLine } from './gateway-config.js';
import { serveGatewaySetup } from './gateway-setup.js';
import type { ServeConfig } from './serve-args.js';

export interface PreparedServe {
  readonly config: ServeConfig;
  readonly plans: readonly EnginePlan[];
  readonly gateway: GatewayConfig;
  /** The gateway as `smg launch` flags. */
  readonly gatewayArgv: readonly string[];
  /** Parse warnings, then the §2.8 gateway lines, in the order they are logged. */
  readonly logLines: readonly LogLine[];
  readonly socketDir: string;
  /** The pid files of the worker ports (absent for a dry run). */
  readonly claims?: WorkerClaims;
}

export interface PrepareOptions {
  /** Launcher environment (socket dir, CUDA pool, inherited by engines). Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly ports?: FindPortsOptions;
  /** Lines about leftovers of an earlier serve, logged as they happen. */
  readonly log?: LogFn;
}

/** Throws LaunchError: exit 1 for launch failures, exit 2 for a bad `--router-*` value. */
export async function prepareServe(config: ServeConfig, opts: PrepareOptions = {}): Promise<PreparedServe> {
  const socketDir = zmqSocketDir(opts.env ?? process.env);
  let claims: WorkerClaims | undefined;
  if (!config.dryRun) {
    try {
      await prepareSocketDir(socketDir);
    } catch (err) {
      if (err instanceof IpcPathError) throw new LaunchError(err.message);
      throw err;
    }
    await sweepStaleClaims(socketDir, { log: opts.log ?? (() => {}), graceMs: STOP_ENGINE_GRACE_MS });
    claims = new WorkerClaims(socketDir);
  }
  try {
    const ports = await findWorkerPorts(config.workerBasePort, config.replicas, {
      ...opts.ports,
      accept: opts.ports?.accept ?? workerPortCheck({ socketDir, claims, backend: config.backend }),
    });
    const plans = planEngines(config, ports, { env: opts.env });
    const gateway = serveGatewaySetup(
      config,
      plans.map((p) => p.url),
    );
    if (!gateway.ok) throw new LaunchError(gateway.message, gateway.exitCode);
    return {
      config,
      plans,
      gateway: gateway.config,
      gatewayArgv: gateway.launchArgv,
      logLines: [...config.warnings.map((message): LogLine => ({ level: 'warn', message })), ...gateway.logLines],
      socketDir,
      claims,
    };
  } catch (err) {
    claims?.releaseAll();
    throw err;
  }
}
