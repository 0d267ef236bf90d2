/**
 * The gateway's flags (spec cli-and-api §4.2): `smg launch --<name>`, and inside `smg serve` the
 * same setting as `--router-<name>` (§2.1). Serve's own --host/--port feed the gateway, so those
 * two have no `--router-` form; a few SMG router settings this gateway does not implement are
 * accepted by serve and dropped with a warning, so an SMG command line keeps working.
 */
import { reasoningParserNames } from '../../pipeline/parsers/reasoning/registry.js';
import { toolParserNames } from '../../pipeline/parsers/tools/registry.js';
import { POLICY_NAMES } from '../../workers/types.js';
import type { FlagDef, FlagScope } from './flag-def.js';

// Every registered parser name; the help text lists them all.
const REASONING_PARSERS = reasoningParserNames();
const TOOL_CALL_PARSERS = toolParserNames();
const GATEWAY_BACKENDS = ['sglang', 'openai', 'anthropic', 'vllm', 'tokenspeed', 'trtllm'] as const;

const BOTH: readonly FlagScope[] = ['launch', 'router'];
const LAUNCH_ONLY: readonly FlagScope[] = ['launch'];
const ROUTER_ONLY: readonly FlagScope[] = ['router'];
const COMPAT = 'accepted for SMG compatibility and ignored, with a warning';

export const GATEWAY_FLAGS: readonly FlagDef[] = [
  // ---- Workers
  {
    name: 'worker-urls', key: 'workerUrls', type: 'list', applies: BOTH, group: 'Workers', metavar: '<URL>...',
    describe: 'Worker URLs; ipc://<path> selects a ZMQ direct worker. Repeats accumulate.',
    routerDescribe: "Ignored: the gateway is given the launched engines' URLs",
  },
  {
    name: 'backend', aliases: ['runtime'], key: 'backend', type: 'string', applies: BOTH, group: 'Workers', choices: GATEWAY_BACKENDS,
    describe: 'Runtime of the startup ZMQ workers (vllm or tokenspeed); anything else defaults them to vLLM with a warning',
    routerDescribe: "Checked against the choices, then replaced by serve's --backend, since the ZMQ handshake cannot tell the engine types apart",
  },
  {
    name: 'model-path', aliases: ['model'], key: 'modelPath', type: 'string', applies: BOTH, group: 'Workers', metavar: '<MODEL>',
    describe: 'Model id of ZMQ workers and the tokenizer source (required for ZMQ)',
    routerDescribe: "Model id of the ZMQ workers and the tokenizer source [default: the engine's --model, unless --router-disable-arg-fallback]",
  },
  { name: 'tokenizer-path', key: 'tokenizerPath', type: 'string', applies: BOTH, group: 'Workers', metavar: '<PATH>', describe: 'Tokenizer source overriding the model path' },
  { name: 'chat-template', key: 'chatTemplate', type: 'string', applies: BOTH, group: 'Workers', metavar: '<PATH>', describe: 'Chat template file for gateway-side templating' },
  {
    name: 'reasoning-parser', key: 'reasoningParser', type: 'string', applies: BOTH, group: 'Workers', choices: REASONING_PARSERS,
    describe: 'Reasoning parser for chat, Messages and Responses output [default: detected from the model name; a worker label reasoning_parser wins]',
    routerDescribe: "Reasoning parser for chat, Messages and Responses output [default: detected from the model name]; with --backend vllm and this unset, the engine's --reasoning-parser is used unless --router-disable-arg-fallback",
  },
  { name: 'tool-call-parser', key: 'toolCallParser', type: 'string', applies: BOTH, group: 'Workers', choices: TOOL_CALL_PARSERS, describe: 'Tool-call parser for chat, Messages and Responses output [default: detected from the model name; a worker label tool_parser wins]' },
  {
    name: 'zmq-engine-count', key: 'zmqEngineCount', type: 'int', applies: BOTH, group: 'Workers', range: 'count', defaultText: '1',
    describe: 'Engines behind each startup ipc:// URL (grouped data-parallel worker)',
    routerDescribe: "Engines behind each worker; the engines' own --data-parallel-size (after --) sets it",
  },
  { name: 'dp-aware', key: 'dpAware', type: 'bool', applies: BOTH, group: 'Workers', describe: 'Expand data-parallel workers per rank (grouped ZMQ workers are rejected)' },
  { name: 'disable-tokenizer-autoload', key: 'disableTokenizerAutoload', type: 'bool', applies: BOTH, group: 'Workers', describe: 'Skip tokenizer loading and the readiness tokenizer gate' },
  {
    name: 'disable-arg-fallback', type: 'bool', applies: ROUTER_ONLY, group: 'Workers',
    describe: "Do not fill unset gateway settings from the engine arguments (--model as the model path, vLLM's --reasoning-parser)",
  },
  // ---- Routing
  {
    name: 'policy', key: 'policy', type: 'string', applies: BOTH, group: 'Routing', choices: POLICY_NAMES,
    describe: 'Routing policy across workers',
    routerDescribe: 'Routing policy across workers; forced to passthrough when --dp-size is 1',
  },
  {
    name: 'disable-retries', key: 'disableRetries', type: 'bool', applies: BOTH, group: 'Routing',
    describe: 'Accepted for smg serve compatibility (this gateway does not retry)',
    routerDescribe: 'Accepted for SMG compatibility (this gateway does not retry); set when --dp-size is 1',
  },
  {
    name: 'disable-circuit-breaker', key: 'disableCircuitBreaker', type: 'bool', applies: BOTH, group: 'Routing',
    describe: 'Accepted for smg serve compatibility (this gateway has no circuit breaker)',
    routerDescribe: 'Accepted for SMG compatibility (this gateway has no circuit breaker); set when --dp-size is 1',
  },
  // ---- Server
  { name: 'host', key: 'host', type: 'string', applies: LAUNCH_ONLY, group: 'Server', metavar: '<HOST>', describe: 'Listen host' },
  { name: 'port', key: 'port', type: 'int', applies: LAUNCH_ONLY, group: 'Server', metavar: '<PORT>', describe: 'Listen port' },
  { name: 'prometheus-host', key: 'prometheusHost', type: 'string', applies: BOTH, group: 'Server', metavar: '<HOST>', describe: 'Metrics listen host' },
  { name: 'prometheus-port', key: 'prometheusPort', type: 'int', applies: BOTH, group: 'Server', metavar: '<PORT>', describe: 'Metrics listen port (GET /metrics)' },
  { name: 'api-key', key: 'apiKey', type: 'string', applies: BOTH, group: 'Server', metavar: '<KEY>', describe: 'Bearer key required on /v1/* and the worker API' },
  { name: 'request-timeout-secs', key: 'requestTimeoutSecs', type: 'int', applies: BOTH, group: 'Server', metavar: '<SECS>', describe: 'Request timeout in seconds' },
  {
    name: 'shutdown-grace-period-secs', key: 'shutdownGracePeriodSecs', type: 'int', applies: BOTH, group: 'Server', metavar: '<SECS>',
    describe: 'Time in-flight requests get to finish on SIGINT/SIGTERM',
  },
  {
    name: 'drain-settle-secs', key: 'drainSettleSecs', type: 'int', applies: BOTH, group: 'Server', metavar: '<SECS>',
    describe: 'How long /readiness reports draining before the listener stops (capped at half the grace period)',
  },
  // ---- Health
  {
    name: 'disable-health-check', key: 'disableHealthCheck', type: 'bool', applies: BOTH, group: 'Health',
    describe: 'Disable health checks (ignored for ZMQ workers, whose probe reconnects restarted engines)',
  },
  {
    name: 'remove-unhealthy-workers', aliases: ['worker-auto-recovery'], key: 'removeUnhealthyWorkers', type: 'bool', applies: BOTH, group: 'Health',
    describe: 'Remove workers that reach failed (a ZMQ worker then never comes back)',
  },
  { name: 'health-check-interval-secs', key: 'healthCheckIntervalSecs', type: 'int', applies: BOTH, group: 'Health', metavar: '<SECS>', range: 'positive', describe: 'Probe interval' },
  { name: 'health-check-timeout-secs', key: 'healthCheckTimeoutSecs', type: 'int', applies: BOTH, group: 'Health', metavar: '<SECS>', describe: 'Probe timeout (ZMQ probes are local and immediate)' },
  { name: 'health-failure-threshold', key: 'healthFailureThreshold', type: 'int', applies: BOTH, group: 'Health', describe: 'Consecutive failures before ready → not_ready' },
  {
    name: 'health-success-threshold', key: 'healthSuccessThreshold', type: 'int', applies: BOTH, group: 'Health',
    describe: 'Consecutive successes before not_ready → ready (ZMQ promotes on handshake)',
  },
  { name: 'health-check-endpoint', type: 'string', applies: ROUTER_ONLY, group: 'Health', metavar: '<PATH>', compat: true, describe: `SMG's probe path for HTTP workers; ${COMPAT}` },
  { name: 'health-check-port', type: 'int', applies: ROUTER_ONLY, group: 'Health', metavar: '<PORT>', compat: true, describe: `SMG's probe-only listener; ${COMPAT}` },
  // ---- Limits
  { name: 'max-concurrent-requests', key: 'maxConcurrentRequests', type: 'int', applies: BOTH, group: 'Limits', describe: 'Concurrent inference requests allowed (-1 = no cap)' },
  { name: 'queue-size', key: 'queueSize', type: 'int', applies: BOTH, group: 'Limits', describe: 'Requests allowed to wait for a slot when capped (0 = refuse at once with 429)' },
  { name: 'queue-timeout-secs', key: 'queueTimeoutSecs', type: 'int', applies: BOTH, group: 'Limits', metavar: '<SECS>', describe: 'Longest wait for a slot' },
  { name: 'rate-limit-tokens-per-second', type: 'int', applies: ROUTER_ONLY, group: 'Limits', compat: true, describe: `SMG's token-bucket refill rate; ${COMPAT}` },
  // ---- Logging
  { name: 'log-level', key: 'logLevel', type: 'string', applies: BOTH, group: 'Logging', choices: ['debug', 'info', 'warn', 'error'], describe: 'Log level' },
  { name: 'log-json', key: 'logJson', type: 'bool', applies: BOTH, group: 'Logging', describe: 'Log JSON lines' },
  { name: 'log-dir', type: 'string', applies: ROUTER_ONLY, group: 'Logging', metavar: '<DIR>', compat: true, describe: `SMG's log directory (logs go to stdout here); ${COMPAT}` },
  // ---- Tuning
  {
    name: 'zmq-stage-timeout-secs', key: 'zmqStageTimeoutSecs', type: 'number', applies: BOTH, group: 'Tuning', metavar: '<SECS>', range: 'positive',
    describe: 'Wait per ZMQ handshake message',
  },
  {
    name: 'zmq-silence-timeout-secs', key: 'zmqSilenceTimeoutSecs', type: 'number', applies: BOTH, group: 'Tuning', metavar: '<SECS>', range: 'positive',
    describe: 'Output silence with requests in flight that counts as engine death',
  },
];
