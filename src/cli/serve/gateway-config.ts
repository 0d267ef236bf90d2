/**
 * The gateway configuration `smg serve` hands to the in-process gateway (spec cli-and-api §2.8,
 * §2.2 fallback rule). Plain data plus the log lines to print; the CLI maps it onto the gateway.
 */
import type { RuntimeType } from '../../engine/types.js';
import { readEngineValue } from '../../launcher/engine-args.js';
import { parseInteger } from '../../util/numbers.js';
import { lastValue, type FlagValue } from '../flags/flag-def.js';
import type { ServeConfig } from './serve-args.js';

export interface ServeGatewayConfig {
  /** Serve's own --host/--port (there is no --router-host/--router-port). */
  readonly host: string;
  readonly port: number;
  /** The launched replicas' URLs in port order; any --worker-urls is overwritten. */
  readonly workerUrls: readonly string[];
  /** Pinned to serve's --backend: the ZMQ handshake cannot reveal the engine type. */
  readonly backend: RuntimeType;
  readonly modelPath: string | undefined;
  /** E when the engines run E > 1 data-parallel ranks, else --router-zmq-engine-count if given. */
  readonly zmqEngineCount: number | undefined;
  /** Undefined = the gateway's own default (cache_aware). */
  readonly policy: string | undefined;
  readonly disableRetries: boolean;
  readonly disableCircuitBreaker: boolean;
  /** Every other --router-* value by launch flag name (after the fallback rule). */
  readonly other: Readonly<Record<string, FlagValue>>;
}

export interface LogLine {
  readonly level: 'info' | 'warn';
  readonly message: string;
}

export interface GatewayConfigResult {
  readonly config: ServeGatewayConfig;
  readonly logLines: readonly LogLine[];
}

export type GatewayInput = Pick<
  ServeConfig,
  'backend' | 'host' | 'port' | 'replicas' | 'model' | 'engineArgs' | 'engineDataParallelSize' | 'router'
>;

/** Settings this module decides itself; everything else is carried through in `other`. */
const DECIDED = new Set([
  'worker-urls',
  'backend',
  'model-path',
  'zmq-engine-count',
  'policy',
  'disable-retries',
  'disable-circuit-breaker',
  'disable-arg-fallback',
]);

/**
 * Nullable gateway settings whose name vLLM's engine parser also defines, so SMG's fallback rule
 * can fill them from the engine args. TokenSpeed's stub exposes only model/tp: nothing falls back.
 */
const VLLM_FALLBACK_SETTINGS: readonly string[] = [
  'reasoning-parser',
  'served-model-name',
  // vLLM's frontend flags, given where a `vllm serve` command line has them: its tracing endpoint
  // and its CORS lists (one JSON value each, which the gateway reads as such).
  'otlp-traces-endpoint',
  'cors-allowed-origins',
  'allowed-methods',
  'allowed-headers',
];

/** Where the engine's spelling differs from the gateway setting's name. */
const VLLM_ENGINE_SPELLING: Readonly<Record<string, string>> = { 'cors-allowed-origins': 'allowed-origins' };

export function buildGatewayConfig(input: GatewayInput, workerUrls: readonly string[]): GatewayConfigResult {
  const router = input.router;
  const logLines: LogLine[] = [];
  const fallback = router['disable-arg-fallback'] !== true;

  const other: Record<string, FlagValue> = {};
  for (const [name, value] of Object.entries(router)) if (!DECIDED.has(name)) other[name] = value;
  if (fallback && input.backend === 'vllm') {
    for (const name of VLLM_FALLBACK_SETTINGS) {
      const engineValue = readEngineValue(input.engineArgs, [`--${VLLM_ENGINE_SPELLING[name] ?? name}`]);
      if (other[name] === undefined && engineValue) other[name] = engineValue;
    }
  }

  // Clone decision (§2.2, §8): SMG leaves the model path empty and every ZMQ worker then fails
  // registration; defaulting to the engine's --model is what users mean.
  let modelPath = lastValue(router['model-path']);
  if (modelPath === undefined && fallback && input.model !== undefined) {
    modelPath = input.model;
    logLines.push({ level: 'info', message: `--router-model-path not set; using --model ${input.model} as the gateway model path` });
  }

  const routerCount = lastValue(router['zmq-engine-count']);
  let zmqEngineCount = routerCount === undefined ? undefined : (parseInteger(routerCount) ?? undefined);
  if (input.engineDataParallelSize > 1) {
    zmqEngineCount = input.engineDataParallelSize;
  } else if (zmqEngineCount !== undefined && zmqEngineCount > 1) {
    // SMG keeps it silently; the gateway would then wait for engines that were never launched.
    logLines.push({
      level: 'warn',
      message: `--router-zmq-engine-count ${zmqEngineCount} but the engines were launched without --data-parallel-size; each worker will wait for ${zmqEngineCount} engines`,
    });
  }

  let policy = lastValue(router['policy']);
  let disableRetries = router['disable-retries'] === true;
  let disableCircuitBreaker = router['disable-circuit-breaker'] === true;
  const n = input.replicas;
  if (n <= 1) {
    if (!disableRetries) {
      disableRetries = true;
      logLines.push({ level: 'info', message: `dp=${n}: disabling router-level retries (per-worker resilience handles failures)` });
    }
    if (!disableCircuitBreaker) {
      disableCircuitBreaker = true;
      logLines.push({ level: 'info', message: `dp=${n}: disabling router-level circuit breaker (per-worker resilience handles failures)` });
    }
    if (policy !== 'passthrough') {
      policy = 'passthrough';
      logLines.push({
        level: 'info',
        message: `dp=${n}: forcing router policy to passthrough (single backend; skips load monitoring and KV-event subscription)`,
      });
    }
  }

  return {
    config: {
      host: input.host,
      port: input.port,
      workerUrls: [...workerUrls],
      backend: input.backend,
      modelPath,
      zmqEngineCount,
      policy,
      disableRetries,
      disableCircuitBreaker,
      other,
    },
    logLines,
  };
}

/**
 * The same configuration as `smg launch` flags, so the CLI can reuse the launch parser and its
 * validation (choices, ranges) for the gateway that serve starts.
 */
export function toLaunchArgv(config: ServeGatewayConfig): string[] {
  const argv = ['--host', config.host, '--port', String(config.port), '--backend', config.backend];
  if (config.workerUrls.length > 0) argv.push('--worker-urls', ...config.workerUrls);
  if (config.modelPath !== undefined) argv.push('--model-path', config.modelPath);
  if (config.zmqEngineCount !== undefined) argv.push('--zmq-engine-count', String(config.zmqEngineCount));
  if (config.policy !== undefined) argv.push('--policy', config.policy);
  if (config.disableRetries) argv.push('--disable-retries');
  if (config.disableCircuitBreaker) argv.push('--disable-circuit-breaker');
  for (const [name, value] of Object.entries(config.other)) {
    if (value === true) argv.push(`--${name}`);
    else if (Array.isArray(value)) argv.push(`--${name}`, ...value);
    else argv.push(`--${name}=${value}`);
  }
  return argv;
}
