/**
 * The gateway's flags (spec cli-and-api §4.2): `smg launch --<name>`, and inside `smg serve` the
 * same setting as `--router-<name>` (§2.1). Serve's own --host/--port feed the gateway, so those
 * two have no `--router-` form; a few SMG router settings this gateway does not implement are
 * accepted by serve and dropped with a warning, so an SMG command line keeps working.
 */
import { reasoningParserNames } from '../../pipeline/parsers/reasoning/registry.js';
import { toolParserNames } from '../../pipeline/parsers/tools/registry.js';
import { ASSIGNMENT_MODES, POLICY_NAMES } from '../../workers/types.js';
import type { FlagDef, FlagScope } from './flag-def.js';

// Every registered parser name; the help text lists them all.
const REASONING_PARSERS = reasoningParserNames();
const TOOL_CALL_PARSERS = toolParserNames();
const GATEWAY_BACKENDS = ['sglang', 'openai', 'anthropic', 'vllm', 'tokenspeed', 'trtllm'] as const;

const BOTH: readonly FlagScope[] = ['launch', 'router'];
const LAUNCH_ONLY: readonly FlagScope[] = ['launch'];
const ROUTER_ONLY: readonly FlagScope[] = ['router'];

export const GATEWAY_FLAGS: readonly FlagDef[] = [
  // ---- Workers
  {
    name: 'worker-urls', key: 'workerUrls', type: 'list', applies: BOTH, group: 'Workers', metavar: '<URL>...',
    describe: 'Worker URLs; ipc://<path> selects a ZMQ direct worker. Repeats accumulate.',
    routerDescribe: "Ignored: the gateway is given the launched engines' URLs",
  },
  {
    name: 'backend', aliases: ['runtime'], key: 'backend', type: 'string', applies: BOTH, group: 'Workers', choices: GATEWAY_BACKENDS,
    describe: 'Runtime of the startup ipc:// workers: vllm or tokenspeed; unset defaults them to vLLM with a warning, and any other backend with ipc:// workers is a usage error',
    routerDescribe: "Checked against the choices, then replaced by serve's --backend, since the ZMQ handshake cannot tell the engine types apart",
  },
  {
    name: 'model-path', aliases: ['model'], key: 'modelPath', type: 'string', applies: BOTH, group: 'Workers', metavar: '<MODEL>',
    describe: 'Model id of ZMQ workers and the tokenizer source (required for ZMQ)',
    routerDescribe: "Model id of the ZMQ workers and the tokenizer source [default: the engine's --model, unless --router-disable-arg-fallback]",
  },
  {
    name: 'served-model-name', key: 'servedModelNames', type: 'list', applies: BOTH, group: 'Workers', metavar: '<NAME>...',
    describe:
      "API model names of the ZMQ workers, as vLLM's flag: the first is the id /v1/models and responses report, every one is accepted as a request's model [default: the model path]",
    routerDescribe:
      "API model names of the ZMQ workers (the first is reported, all are accepted) [default: the engine's --served-model-name with --backend vllm, else the model path]",
  },
  { name: 'tokenizer-path', key: 'tokenizerPath', type: 'string', applies: BOTH, group: 'Workers', metavar: '<PATH>', describe: 'Tokenizer source overriding the model path' },
  { name: 'chat-template', key: 'chatTemplate', type: 'string', applies: BOTH, group: 'Workers', metavar: '<PATH>', describe: 'Chat template file for gateway-side templating' },
  {
    name: 'chat-template-content-format', key: 'chatTemplateContentFormat', type: 'string', applies: BOTH, group: 'Workers', choices: ['auto', 'string', 'openai'], defaultText: 'auto',
    describe: "How message content reaches the chat template, as vLLM's flag: 'string' (text parts joined), 'openai' (a list of {type, text} parts), or 'auto' (detected from the template as vLLM does)",
  },
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
    describe:
      'Routing policy across workers. consistent_hashing: X-SMG-Target-Worker (0-based index), else X-SMG-Routing-Key, else Authorization / X-Forwarded-For / Cookie on a hash ring, else random; prefix_hash: the first --prefix-token-count prompt tokens (or X-SMG-Routing-Key) on a hash ring, bounded by --prefix-hash-load-factor; manual: X-SMG-Routing-Key pinned to a worker (--assignment-mode places new keys)',
    routerDescribe: 'Routing policy across workers; forced to passthrough when --dp-size is 1 (the hashing policies: smg launch --help)',
  },
  {
    name: 'prefix-token-count', key: 'prefixTokenCount', type: 'int', applies: BOTH, group: 'Routing', range: 'positive',
    describe: 'prefix_hash: leading prompt tokens hashed onto the ring',
  },
  {
    name: 'prefix-hash-load-factor', key: 'prefixHashLoadFactor', type: 'number', applies: BOTH, group: 'Routing', metavar: '<F>',
    describe: 'prefix_hash: a ring target loaded above this multiple of the mean (and the mean + 10) is passed over for the least-loaded worker',
  },
  {
    name: 'assignment-mode', key: 'assignmentMode', type: 'string', applies: BOTH, group: 'Routing', choices: ASSIGNMENT_MODES,
    describe: 'manual: where a routing key seen for the first time goes (random worker, fewest requests in flight, fewest keys)',
  },
  {
    name: 'max-idle-secs', key: 'maxIdleSecs', type: 'int', applies: BOTH, group: 'Routing', metavar: '<SECS>', range: 'nonNegative',
    describe: 'manual: routing keys unused this long are forgotten (0 = never)',
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
  {
    name: 'health-check-endpoint', key: 'healthCheckEndpoint', type: 'string', applies: BOTH, group: 'Health', metavar: '<PATH>',
    describe: 'Probe path of HTTP workers; ZMQ workers are probed locally and never use it',
  },
  {
    name: 'health-check-port', key: 'healthCheckPort', type: 'int', applies: BOTH, group: 'Health', metavar: '<PORT>',
    describe: 'Also serve /liveness, /readiness and /health alone on this port of the gateway host (must be > 0)',
  },
  {
    name: 'worker-startup-timeout-secs', key: 'workerStartupTimeoutSecs', type: 'int', applies: BOTH, group: 'Health', metavar: '<SECS>',
    describe: 'A worker whose engines have not completed the handshake this long after it registered is marked failed',
  },
  {
    name: 'worker-startup-check-interval', key: 'workerStartupCheckInterval', type: 'int', applies: BOTH, group: 'Health', metavar: '<SECS>',
    describe: 'Probe interval of a worker still waiting for its handshake (never slower than --health-check-interval-secs)',
  },
  // ---- Limits
  { name: 'max-concurrent-requests', key: 'maxConcurrentRequests', type: 'int', applies: BOTH, group: 'Limits', describe: 'Concurrent inference requests allowed (-1 = no cap)' },
  { name: 'queue-size', key: 'queueSize', type: 'int', applies: BOTH, group: 'Limits', describe: 'Requests allowed to wait for a slot when capped (0 = refuse at once with 429)' },
  { name: 'queue-timeout-secs', key: 'queueTimeoutSecs', type: 'int', applies: BOTH, group: 'Limits', metavar: '<SECS>', describe: 'Longest wait for a slot' },
  {
    name: 'rate-limit-tokens-per-second', key: 'rateLimitTokensPerSecond', type: 'int', applies: BOTH, group: 'Limits', metavar: '<N>',
    describe:
      'Refill rate of the --max-concurrent-requests token bucket: besides the tokens finished requests return, this many per second drip in, up to the cap (0 or unset: a plain concurrency cap)',
  },
  // ---- Logging
  { name: 'log-level', key: 'logLevel', type: 'string', applies: BOTH, group: 'Logging', choices: ['debug', 'info', 'warn', 'error'], describe: 'Log level' },
  { name: 'log-json', key: 'logJson', type: 'bool', applies: BOTH, group: 'Logging', describe: 'Log JSON lines' },
  {
    name: 'log-dir', key: 'logDir', type: 'string', applies: BOTH, group: 'Logging', metavar: '<DIR>',
    describe: 'Also write the log to a daily file <DIR>/smg.<YYYY-MM-DD> (created if missing)',
  },
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
