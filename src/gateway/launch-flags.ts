/**
 * The gateway flag table: one row per `smg launch` flag. `smg serve` can reuse it with a `router-`
 * prefix (GATEWAY_FLAGS + gatewayConfigFromFlags); help text and parsing both come from here.
 */
import { POLICY_NAMES } from '../workers/types.js';
import { defaultGatewayConfig, type GatewayConfig } from './config.js';

export type FlagKind = 'string' | 'int' | 'number' | 'bool' | 'list';

export interface FlagDef {
  name: string;
  key: keyof GatewayConfig;
  kind: FlagKind;
  describe: string;
  aliases?: string[];
  choices?: readonly string[];
  /** Extra check on an already-parsed number; returns the message after `invalid value '<v>' for '--flag': `. */
  check?: (n: number, raw: string) => string | null;
  group: 'Workers' | 'Routing' | 'Server' | 'Health' | 'Limits' | 'Logging' | 'Tuning';
}

const REASONING_PARSERS = [
  'base', 'passthrough', 'deepseek_r1', 'qwen3', 'qwen3_thinking', 'kimi', 'glm45', 'step3', 'minimax',
  'cohere_cmd', 'nano_v3', 'inkling', 'deepseek_v31', 'deepseek_v4', 'kimi_k25', 'kimi_thinking', 'kimi_k3',
] as const;
const TOOL_CALL_PARSERS = [
  'passthrough', 'json', 'qwen', 'qwen_xml', 'qwen_coder', 'nemotron', 'pythonic', 'llama', 'deepseek',
  'deepseek31', 'deepseek32', 'deepseek_v4', 'glm45_moe', 'glm47_moe', 'step3', 'sarashina', 'minimax_m2', 'cohere',
] as const;
const BACKENDS = ['sglang', 'openai', 'anthropic', 'vllm', 'tokenspeed', 'trtllm'] as const;

const atLeastOne = (n: number, raw: string) => (n >= 1 ? null : `invalid value '${raw}'; expected a count >= 1`);
const positive = (n: number) => (n > 0 ? null : 'expected a number > 0');

export const GATEWAY_FLAGS: readonly FlagDef[] = [
  { name: 'worker-urls', key: 'workerUrls', kind: 'list', group: 'Workers', describe: 'Worker URLs; ipc://<path> selects a ZMQ direct worker. Repeats accumulate.' },
  { name: 'backend', key: 'backend', kind: 'string', group: 'Workers', aliases: ['runtime'], choices: BACKENDS, describe: 'Runtime of the startup ZMQ workers (vllm or tokenspeed); anything else defaults them to vLLM with a warning' },
  { name: 'model-path', key: 'modelPath', kind: 'string', group: 'Workers', aliases: ['model'], describe: 'Model id of ZMQ workers and the tokenizer source (required for ZMQ)' },
  { name: 'tokenizer-path', key: 'tokenizerPath', kind: 'string', group: 'Workers', describe: 'Tokenizer source overriding --model-path' },
  { name: 'chat-template', key: 'chatTemplate', kind: 'string', group: 'Workers', describe: 'Chat template file for gateway-side templating' },
  { name: 'reasoning-parser', key: 'reasoningParser', kind: 'string', group: 'Workers', choices: REASONING_PARSERS, describe: 'Reasoning parser for responses' },
  { name: 'tool-call-parser', key: 'toolCallParser', kind: 'string', group: 'Workers', choices: TOOL_CALL_PARSERS, describe: 'Tool-call parser for responses' },
  { name: 'zmq-engine-count', key: 'zmqEngineCount', kind: 'int', group: 'Workers', check: atLeastOne, describe: 'Engines behind each startup ipc:// URL (grouped data-parallel worker) [default: 1]' },
  { name: 'dp-aware', key: 'dpAware', kind: 'bool', group: 'Workers', describe: 'Expand data-parallel workers per rank (grouped ZMQ workers are rejected)' },
  { name: 'policy', key: 'policy', kind: 'string', group: 'Routing', choices: POLICY_NAMES, describe: 'Routing policy across workers' },
  { name: 'host', key: 'host', kind: 'string', group: 'Server', describe: 'Listen host' },
  { name: 'port', key: 'port', kind: 'int', group: 'Server', describe: 'Listen port' },
  { name: 'prometheus-host', key: 'prometheusHost', kind: 'string', group: 'Server', describe: 'Metrics listen host' },
  { name: 'prometheus-port', key: 'prometheusPort', kind: 'int', group: 'Server', describe: 'Metrics listen port (GET /metrics)' },
  { name: 'api-key', key: 'apiKey', kind: 'string', group: 'Server', describe: 'Bearer key required on /v1/* and the worker API' },
  { name: 'request-timeout-secs', key: 'requestTimeoutSecs', kind: 'int', group: 'Server', describe: 'Request timeout in seconds' },
  { name: 'shutdown-grace-period-secs', key: 'shutdownGracePeriodSecs', kind: 'int', group: 'Server', describe: 'Time in-flight requests get to finish on SIGINT/SIGTERM' },
  { name: 'drain-settle-secs', key: 'drainSettleSecs', kind: 'int', group: 'Server', describe: 'How long /readiness reports draining before the listener stops (capped at half the grace period)' },
  { name: 'disable-health-check', key: 'disableHealthCheck', kind: 'bool', group: 'Health', describe: 'Disable health checks (ignored for ZMQ workers, whose probe reconnects restarted engines)' },
  { name: 'remove-unhealthy-workers', key: 'removeUnhealthyWorkers', kind: 'bool', group: 'Health', aliases: ['worker-auto-recovery'], describe: 'Remove workers that reach failed (a ZMQ worker then never comes back)' },
  { name: 'health-check-interval-secs', key: 'healthCheckIntervalSecs', kind: 'int', group: 'Health', check: positive, describe: 'Probe interval' },
  { name: 'health-check-timeout-secs', key: 'healthCheckTimeoutSecs', kind: 'int', group: 'Health', describe: 'Probe timeout (ZMQ probes are local and immediate)' },
  { name: 'health-failure-threshold', key: 'healthFailureThreshold', kind: 'int', group: 'Health', describe: 'Consecutive failures before ready → not_ready' },
  { name: 'health-success-threshold', key: 'healthSuccessThreshold', kind: 'int', group: 'Health', describe: 'Consecutive successes before not_ready → ready (ZMQ promotes on handshake)' },
  { name: 'max-concurrent-requests', key: 'maxConcurrentRequests', kind: 'int', group: 'Limits', describe: 'Concurrent inference requests allowed (-1 = no cap)' },
  { name: 'queue-size', key: 'queueSize', kind: 'int', group: 'Limits', describe: 'Requests allowed to wait for a slot when capped (0 = refuse at once with 429)' },
  { name: 'queue-timeout-secs', key: 'queueTimeoutSecs', kind: 'int', group: 'Limits', describe: 'Longest wait for a slot' },
  { name: 'log-level', key: 'logLevel', kind: 'string', group: 'Logging', choices: ['debug', 'info', 'warn', 'error'], describe: 'Log level' },
  { name: 'log-json', key: 'logJson', kind: 'bool', group: 'Logging', describe: 'Log JSON lines' },
  { name: 'disable-tokenizer-autoload', key: 'disableTokenizerAutoload', kind: 'bool', group: 'Workers', describe: 'Skip tokenizer loading and the readiness tokenizer gate' },
  { name: 'disable-retries', key: 'disableRetries', kind: 'bool', group: 'Routing', describe: 'Accepted for smg serve compatibility (this gateway does not retry)' },
  { name: 'disable-circuit-breaker', key: 'disableCircuitBreaker', kind: 'bool', group: 'Routing', describe: 'Accepted for smg serve compatibility (this gateway has no circuit breaker)' },
  { name: 'zmq-stage-timeout-secs', key: 'zmqStageTimeoutSecs', kind: 'number', group: 'Tuning', check: positive, describe: 'Wait per ZMQ handshake message' },
  { name: 'zmq-silence-timeout-secs', key: 'zmqSilenceTimeoutSecs', kind: 'number', group: 'Tuning', check: positive, describe: 'Output silence with requests in flight that counts as engine death' },
];

export class UsageError extends Error {
  override name = 'UsageError';
}

export type RawFlagValue = string | boolean | Array<string | number>;

function lastOf(v: RawFlagValue): string | boolean {
  // Repeating a single-value flag keeps the last value (argparse semantics).
  if (Array.isArray(v)) return String(v[v.length - 1] ?? '');
  return v;
}

function parseNumber(def: FlagDef, raw: string): number {
  const ok = def.kind === 'int' ? /^[+-]?\d+$/.test(raw.trim()) : raw.trim() !== '' && Number.isFinite(Number(raw));
  if (!ok) {
    throw new UsageError(`invalid value '${raw}' for '--${def.name}': expected ${def.kind === 'int' ? 'an integer' : 'a number'}`);
  }
  const n = Number(raw);
  const problem = def.check?.(n, raw);
  if (problem) throw new UsageError(`invalid value '${raw}' for '--${def.name} <N>': ${problem}`);
  return n;
}

/**
 * Turns raw values keyed by flag name (no prefix, no dashes) into a config over the defaults.
 * Throws UsageError with a clap-style message for bad values.
 */
export function gatewayConfigFromFlags(values: Record<string, RawFlagValue | undefined>): GatewayConfig {
  const cfg = defaultGatewayConfig() as unknown as Record<string, unknown>;
  for (const def of GATEWAY_FLAGS) {
    const v = values[def.name];
    if (v === undefined) continue;
    if (def.kind === 'list') {
      cfg[def.key] = (Array.isArray(v) ? v : [v]).map(String).filter((s) => s !== '');
      continue;
    }
    const last = lastOf(v);
    if (def.kind === 'bool') {
      cfg[def.key] = last === true || last === 'true';
      continue;
    }
    const raw = String(last);
    if (def.choices && !def.choices.includes(raw)) {
      throw new UsageError(`invalid value '${raw}' for '--${def.name}': possible values are ${def.choices.join(', ')}`);
    }
    cfg[def.key] = def.kind === 'int' || def.kind === 'number' ? parseNumber(def, raw) : raw;
  }
  return cfg as unknown as GatewayConfig;
}

function metavar(def: FlagDef): string {
  if (def.kind === 'bool') return '';
  if (def.kind === 'list') return ' <URL>...';
  if (def.kind === 'int' || def.kind === 'number') return ' <N>';
  return ' <VALUE>';
}

function defaultText(def: FlagDef): string {
  const d = (defaultGatewayConfig() as unknown as Record<string, unknown>)[def.key];
  if (d === null || d === false || (Array.isArray(d) && d.length === 0)) return '';
  return ` [default: ${String(d)}]`;
}

export function launchHelp(): string {
  const out: string[] = [
    'Usage: smg launch [options]',
    '',
    'Run the gateway alone against headless engines started elsewhere. Workers given with',
    '--worker-urls register in the background; the gateway serves HTTP at once and /readiness',
    'turns 200 once a worker has completed its ZMQ handshake and its tokenizer is loaded.',
  ];
  const groups = [...new Set(GATEWAY_FLAGS.map((f) => f.group))];
  for (const g of groups) {
    out.push('', `${g}:`);
    for (const def of GATEWAY_FLAGS.filter((f) => f.group === g)) {
      const names = [`--${def.name}`, ...(def.aliases ?? []).map((a) => `--${a}`)].join(', ');
      const choices = def.choices && def.choices.length <= 8 ? ` (${def.choices.join('|')})` : '';
      out.push(`  ${names}${metavar(def)}`);
      out.push(`      ${def.describe}${choices}${defaultText(def)}`);
    }
  }
  out.push('', '  -h, --help', '      Show this help', '');
  return out.join('\n');
}
