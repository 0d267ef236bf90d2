/**
 * The gateway's flags (spec cli-and-api §4.2): `smg launch --<name>`, and inside `smg serve` the
 * same setting as `--router-<name>` (§2.1). Serve's own --host/--port feed the gateway, so those
 * two have no `--router-` form; a few SMG router settings this gateway does not implement are
 * accepted by serve and dropped with a warning, so an SMG command line keeps working.
 */
import { reasoningParserNames } from '../../pipeline/parsers/reasoning/registry.js';
import { toolParserNames } from '../../pipeline/parsers/tools/registry.js';
import { HISTORY_BACKENDS } from '../../history/types.js';
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
    describe: 'Worker URLs; ipc://<path> selects a ZMQ direct worker, http(s)://<host>:<port> an OpenAI-compatible upstream (another smg serve, vllm serve, SGLang) that requests are forwarded to as they came. Repeats accumulate.',
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
    name: 'routing-key-headers', key: 'routingKeyHeaders', type: 'list', applies: BOTH, group: 'Routing', metavar: '<HEADER>...',
    describe: 'Headers read for the routing key of consistent_hashing, prefix_hash and manual, in order; the first with a valid value wins',
    defaultText: 'x-smg-routing-key',
  },
  // ---- Resilience (HTTP workers; SMG's Retry Configuration and Circuit Breaker flags)
  {
    name: 'retry-max-retries', key: 'retryMaxRetries', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<N>', range: 'count',
    describe: 'HTTP workers: attempts per request in all, each on another worker, only before the first byte reaches the client (connection errors, 408/429/500/502/503/504)',
  },
  { name: 'retry-initial-backoff-ms', key: 'retryInitialBackoffMs', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<MS>', range: 'nonNegative', describe: 'Backoff before the second attempt' },
  { name: 'retry-max-backoff-ms', key: 'retryMaxBackoffMs', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<MS>', range: 'nonNegative', describe: 'Longest backoff between attempts' },
  { name: 'retry-backoff-multiplier', key: 'retryBackoffMultiplier', type: 'number', applies: BOTH, group: 'Resilience', metavar: '<F>', range: 'positive', describe: 'Backoff growth per attempt' },
  { name: 'retry-jitter-factor', key: 'retryJitterFactor', type: 'number', applies: BOTH, group: 'Resilience', metavar: '<F>', range: 'nonNegative', describe: 'Random ± fraction applied to each backoff (0..1)' },
  {
    name: 'disable-retries', key: 'disableRetries', type: 'bool', applies: BOTH, group: 'Resilience',
    describe: 'HTTP workers: one attempt per request',
    routerDescribe: 'HTTP workers: one attempt per request; set when --dp-size is 1',
  },
  {
    name: 'cb-failure-threshold', key: 'cbFailureThreshold', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<N>', range: 'count',
    describe: "Consecutive failed requests (connection errors, 408/500/502/503/504) that open an HTTP worker's circuit breaker, taking it out of selection",
  },
  { name: 'cb-success-threshold', key: 'cbSuccessThreshold', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<N>', range: 'count', describe: 'Consecutive half-open successes that close the breaker' },
  {
    name: 'cb-timeout-duration-secs', key: 'cbTimeoutDurationSecs', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<SECS>', range: 'nonNegative',
    describe: 'How long an open breaker waits before letting one trial request through (half-open)',
  },
  { name: 'cb-window-duration-secs', key: 'cbWindowDurationSecs', type: 'int', applies: BOTH, group: 'Resilience', metavar: '<SECS>', range: 'positive', describe: 'A failure older than this restarts the consecutive-failure count' },
  {
    name: 'disable-circuit-breaker', key: 'disableCircuitBreaker', type: 'bool', applies: BOTH, group: 'Resilience',
    describe: 'HTTP workers: no circuit breaker',
    routerDescribe: 'HTTP workers: no circuit breaker; set when --dp-size is 1',
  },
  // ---- Discovery (Kubernetes; SMG's Service Discovery flags)
  {
    name: 'service-discovery', key: 'serviceDiscovery', type: 'bool', applies: LAUNCH_ONLY, group: 'Discovery',
    describe: 'Add an HTTP worker for every Running and Ready pod matching --selector (in-cluster config, else KUBECONFIG); drain and remove it when the pod goes away',
  },
  { name: 'selector', key: 'selector', type: 'list', applies: LAUNCH_ONLY, group: 'Discovery', metavar: '<KEY=VALUE>...', describe: 'Pod label selector terms, all of which must match' },
  {
    name: 'service-discovery-port', key: 'serviceDiscoveryPort', type: 'int', applies: LAUNCH_ONLY, group: 'Discovery', metavar: '<PORT>', range: 'port',
    describe: 'Worker port of a pod without an smg.ai/worker-ports annotation (a comma-separated port list: one worker per port)',
  },
  { name: 'service-discovery-namespace', key: 'serviceDiscoveryNamespace', type: 'string', applies: LAUNCH_ONLY, group: 'Discovery', metavar: '<NS>', describe: 'Namespace watched [default: all namespaces]' },
  {
    name: 'model-id-from', key: 'modelIdFrom', type: 'string', applies: LAUNCH_ONLY, group: 'Discovery', metavar: '<SOURCE>',
    describe: "A discovered worker's model id: namespace, label:<key> or annotation:<key> [default: the worker's /v1/models]",
  },
  // ---- Server
  { name: 'host', key: 'host', type: 'string', applies: LAUNCH_ONLY, group: 'Server', metavar: '<HOST>', describe: 'Listen host' },
  { name: 'port', key: 'port', type: 'int', applies: LAUNCH_ONLY, group: 'Server', metavar: '<PORT>', describe: 'Listen port' },
  { name: 'prometheus-host', key: 'prometheusHost', type: 'string', applies: BOTH, group: 'Server', metavar: '<HOST>', describe: 'Metrics listen host' },
  {
    name: 'disable-vllm-metrics', key: 'disableVllmMetrics', type: 'bool', applies: BOTH, group: 'Server',
    describe: "Serve SMG's metric names only: without it /metrics also has vLLM's (vllm:time_to_first_token_seconds, vllm:num_requests_running, …) for vLLM dashboards, whose ':' promtool's naming lint reports",
  },
  { name: 'prometheus-port', key: 'prometheusPort', type: 'int', applies: BOTH, group: 'Server', metavar: '<PORT>', describe: 'Metrics listen port (GET /metrics)' },
  { name: 'api-key', key: 'apiKey', type: 'string', applies: BOTH, group: 'Server', metavar: '<KEY>', describe: 'Bearer key required on /v1/* and the worker API' },
  {
    name: 'incremental-streaming-output', key: 'incrementalStreamingOutput', type: 'bool', applies: BOTH, group: 'Server',
    describe: "Streamed /generate chunks carry only that step's text (SGLang's --incremental-streaming-output); a request's own incremental_streaming_output wins [default: cumulative text, SGLang's default]",
  },
  {
    name: 'cors-allowed-origins', aliases: ['allowed-origins'], key: 'corsAllowedOrigins', type: 'list', applies: BOTH, group: 'Server', metavar: '<ORIGIN>...',
    describe:
      "Browser origins allowed to call the gateway (CORS), e.g. http://localhost:3000, or * for any; vLLM's JSON list form '[\"http://a\"]' is accepted too. Preflights are answered before --api-key is checked [default: CORS off]",
  },
  {
    name: 'allowed-methods', key: 'corsAllowedMethods', type: 'list', applies: BOTH, group: 'Server', metavar: '<METHOD>...',
    describe: 'CORS: methods a preflight may ask for, or * [default: GET POST PUT PATCH DELETE OPTIONS]',
  },
  {
    name: 'allowed-headers', key: 'corsAllowedHeaders', type: 'list', applies: BOTH, group: 'Server', metavar: '<HEADER>...',
    describe: 'CORS: request headers a preflight may ask for [default: *, any the browser asks for]',
  },
  { name: 'allow-credentials', key: 'corsAllowCredentials', type: 'bool', applies: BOTH, group: 'Server', describe: 'CORS: allow credentialed requests (the origin is then echoed instead of *)' },
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
    describe: 'Disable health checks: an HTTP worker stays ready once its models are known (its circuit breaker still applies); ignored for ZMQ workers, whose probe reconnects restarted engines',
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
  {
    name: 'max-connections', key: 'maxConnections', type: 'int', applies: BOTH, group: 'Limits', metavar: '<N>', range: 'positive',
    describe:
      'HTTP connections held at once; at the cap idle keep-alive connections are closed to admit new ones (default: the open-files limit minus a reserve of max(64, 20%) for engines, files and threads)',
  },
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
  {
    name: 'disable-access-log', key: 'disableAccessLog', type: 'bool', applies: BOTH, group: 'Logging',
    describe: 'No access-log line per request (method, path, status, latency, tokens, error, request id, worker)',
  },
  {
    name: 'log-requests', key: 'logRequests', type: 'bool', applies: BOTH, group: 'Logging',
    describe: 'Add each request body to its access-log line (cut to --max-log-len)',
    routerDescribe: 'Add each request body to its access-log line (cut to --router-max-log-len)',
  },
  {
    name: 'max-log-len', key: 'maxLogLen', type: 'int', applies: BOTH, group: 'Logging', metavar: '<N>', range: 'nonNegative', defaultText: 'unlimited',
    describe: "Characters of a request body --log-requests keeps (vLLM's --max-log-len)",
    routerDescribe: "Characters of a request body --router-log-requests keeps (vLLM's --max-log-len)",
  },
  // ---- History (SMG's data connector flags; redis and oracle are not built here)
  {
    name: 'history-backend', key: 'historyBackend', type: 'string', applies: BOTH, group: 'History', choices: HISTORY_BACKENDS,
    describe:
      'Where /v1/responses (store, previous_response_id, item_reference) and /v1/conversations keep state: memory (this process only, least recently used out past 100000 records or 256 MiB), postgres (shared by gateways, survives restarts) or none (nothing kept)',
  },
  {
    name: 'postgres-db-url', key: 'postgresDbUrl', type: 'string', applies: BOTH, group: 'History', metavar: '<URL>',
    describe: 'postgres://user:pass@host:port/db of the history database (--history-backend postgres); tables are created and migrated at start',
  },
  { name: 'postgres-pool-max', key: 'postgresPoolMax', type: 'int', applies: BOTH, group: 'History', metavar: '<N>', range: 'positive', describe: 'Connections in the history database pool' },
  {
    name: 'otlp-traces-endpoint', key: 'otlpTracesEndpoint', type: 'string', applies: BOTH, group: 'Logging', metavar: '<URL>',
    describe:
      "OpenTelemetry: send a span per inference request (children: validation, template, tokenize, queue, first_token, stream) over OTLP/HTTP protobuf to this URL or host:port; a URL without a path gets /v1/traces. Setting it turns tracing on; a W3C traceparent on the request is the parent [default: tracing off]",
  },
  {
    name: 'enable-trace', key: 'enableTrace', type: 'bool', applies: BOTH, group: 'Logging',
    describe: 'OpenTelemetry tracing on (SMG spelling); without --otlp-traces-endpoint spans go to http://localhost:4318/v1/traces',
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
