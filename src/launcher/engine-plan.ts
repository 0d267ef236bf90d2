/**
 * Everything about each engine that can be decided before spawning one (spec cli-and-api §2.9
 * steps 3–5): URL, handshake port, command line, env. Planning all replicas first means a
 * collision or a short GPU pool fails with no engine started, and `--dry-run` can print the plan.
 */
import type { RuntimeType } from '../engine/types.js';
import { handshakePortFor } from '../engine/fnv-port.js';
import { buildTokenspeedCommand, buildVllmCommand } from './engine-command.js';
import { engineEnv, type Env } from './gpu-slices.js';
import { LaunchError } from './launch-error.js';
import { assertNoHandshakeCollision, zmqIpcUrl, zmqSocketDir } from './ports.js';

export interface EnginePlan {
  /** Replica index, 0-based, in worker-port order. */
  readonly index: number;
  /** `engine-<index>`: log prefix and display name. */
  readonly label: string;
  readonly backend: RuntimeType;
  readonly workerHost: string;
  readonly workerPort: number;
  /** The gateway worker URL, `ipc://<dir>/engine-<port>`. */
  readonly url: string;
  readonly handshakePort: number;
  /** Full command; argv[0] is the Python executable. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly devices: readonly string[];
}

/** What planning needs of `smg serve`'s parsed flags (the CLI's ServeConfig has all of it). */
export interface PlanConfig {
  readonly backend: RuntimeType;
  /** Interpreter: argv[0] of every engine command. */
  readonly python: string;
  /** Engine model; undefined lets vLLM use its own default. */
  readonly model: string | undefined;
  /** Engine passthrough, verbatim and in order (the builders filter launcher-owned flags). */
  readonly engineArgs: readonly string[];
  readonly workerHost: string;
  readonly tensorParallelSize: number;
  /** Engine-level DP size E (grouped worker when > 1). */
  readonly engineDataParallelSize: number;
}

export interface PlanOptions {
  /** Launcher environment: CUDA pool, SMG_ZMQ_SOCKET_DIR, inherited by children. Default process.env. */
  readonly env?: Env;
  readonly uid?: number;
}

export function planEngines(config: PlanConfig, workerPorts: readonly number[], opts: PlanOptions = {}): EnginePlan[] {
  const env = opts.env ?? process.env;
  const socketDir = zmqSocketDir(env, opts.uid);
  const urls = workerPorts.map((p) => zmqIpcUrl(p, socketDir));
  assertNoHandshakeCollision(urls);

  return workerPorts.map((workerPort, index) => {
    const url = urls[index];
    const handshakePort = handshakePortFor(url);
    const slice = engineEnv({
      rank: index,
      tensorParallelSize: config.tensorParallelSize,
      engineDataParallelSize: config.engineDataParallelSize,
      baseEnv: env,
    });
    return {
      index,
      label: `engine-${index}`,
      backend: config.backend,
      workerHost: config.workerHost,
      workerPort,
      url,
      handshakePort,
      argv: commandFor(config, workerPort, handshakePort),
      env: slice.env,
      devices: slice.devices,
    };
  });
}

function commandFor(config: PlanConfig, workerPort: number, handshakePort: number): string[] {
  const common = { python: config.python, handshakePort, engineArgs: config.engineArgs };
  if (config.backend === 'vllm') return buildVllmCommand({ ...common, model: config.model });
  // serve-config rejects this first; kept so a hand-built config cannot emit `--model undefined`.
  if (config.model === undefined) throw new LaunchError('--model is required with --backend tokenspeed', 2);
  return buildTokenspeedCommand({ ...common, model: config.model, workerPort });
}

/** §2.9: logged before each spawn. */
export function launchingLine(plan: EnginePlan): string {
  return `Launching worker with command: ${plan.argv.join(' ')}`;
}

/** §2.9: logged after each spawn. */
export function launchedLine(plan: EnginePlan, pid: number | undefined): string {
  return `Launched ${plan.backend} worker on ${plan.workerHost}:${plan.workerPort} (pid ${pid ?? '?'}, GPUs: ${plan.devices.join(',')})`;
}
