/**
 * Everything `smg serve` decides before it starts anything (spec cli-and-api §2.9 steps 3–4 and
 * §2.8): worker ports, per-engine plans (handshake collision, GPU slices), and the validated
 * gateway configuration. `--dry-run` stops here; a failure here leaves no process behind.
 */
import type { GatewayConfig } from '../../gateway/config.js';
import { findWorkerPorts, type FindPortsOptions } from '../../launcher/ports.js';
import { planEngines, type EnginePlan } from '../../launcher/engine-plan.js';
import { LaunchError } from '../../launcher/launch-error.js';
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
}

export interface PrepareOptions {
  /** Launcher environment (socket dir, CUDA pool, inherited by engines). Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly ports?: FindPortsOptions;
}

/** Throws LaunchError: exit 1 for launch failures, exit 2 for a bad `--router-*` value. */
export async function prepareServe(config: ServeConfig, opts: PrepareOptions = {}): Promise<PreparedServe> {
  const ports = await findWorkerPorts(config.workerBasePort, config.replicas, opts.ports);
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
  };
}
