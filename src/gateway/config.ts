/**
 * The gateway's settings (what `smg launch` flags become, and what `smg serve` builds for its
 * in-process gateway). Defaults follow cli-and-api §4.2.
 */
import type { HistoryBackend } from '../history/types.js';
import type { RetryConfig } from '../forward/retry.js';
import type { AssignmentMode, PolicyName, WorkersConfig } from '../workers/types.js';

export interface GatewayConfig {
  host: string;
  port: number;
  workerUrls: string[];
  /** --backend / --runtime: vllm|tokenspeed pin the startup ZMQ workers' runtime; else unset. */
  backend: string | null;
  modelPath: string | null;
  /** --served-model-name: API names of the model (first = reported id); empty = the model path. */
  servedModelNames: string[];
  tokenizerPath: string | null;
  chatTemplate: string | null;
  /** --chat-template-content-format: 'auto' detects it from the template, as vLLM does. */
  chatTemplateContentFormat: 'auto' | 'string' | 'openai';
  reasoningParser: string | null;
  toolCallParser: string | null;
  policy: PolicyName;
  /** prefix_hash: prompt tokens hashed. */
  prefixTokenCount: number;
  /** prefix_hash: load multiple over the mean above which the ring target is passed over. */
  prefixHashLoadFactor: number;
  /** manual: how a new routing key picks its worker. */
  assignmentMode: AssignmentMode;
  /** manual: idle routing keys are forgotten after this many seconds (0 = never). */
  maxIdleSecs: number;
  /** Grouped engine count for every startup ipc:// URL; null = 1. */
  zmqEngineCount: number | null;
  dpAware: boolean;
  disableHealthCheck: boolean;
  removeUnhealthyWorkers: boolean;
  healthCheckIntervalSecs: number;
  healthCheckTimeoutSecs: number;
  healthFailureThreshold: number;
  healthSuccessThreshold: number;
  /** HTTP workers' probe path; ZMQ workers are probed locally and never use it. */
  healthCheckEndpoint: string;
  /** Extra listener serving only /liveness, /readiness and /health; null = none. */
  healthCheckPort: number | null;
  /** A worker still pending this long after registering is marked failed. */
  workerStartupTimeoutSecs: number;
  /** Probe interval of pending workers (never slower than the health interval). */
  workerStartupCheckInterval: number;
  prometheusHost: string;
  prometheusPort: number;
  requestTimeoutSecs: number;
  /** Streamed /generate chunks carry only the step's text (SGLang's flag); a request field overrides it. */
  incrementalStreamingOutput: boolean;
  shutdownGracePeriodSecs: number;
  /** Shutdown: how long /readiness says `draining` before the listener stops; worker-drain default. */
  drainSettleSecs: number;
  /** -1 (or any value < 1) = no cap. */
  maxConcurrentRequests: number;
  /** HTTP connections held at once; null = derived from the open-files limit (gateway/connection-limits.ts). */
  maxConnections: number | null;
  queueSize: number;
  queueTimeoutSecs: number;
  /** Token-bucket refill per second under --max-concurrent-requests; null/0 = permits only return on completion. */
  rateLimitTokensPerSecond: number | null;
  logLevel: string;
  logJson: boolean;
  /** Also write log lines to a daily file `<dir>/smg.<YYYY-MM-DD>`; null = stdout only. */
  logDir: string | null;
  /** One info line per request (middleware/access-log.ts); off with --disable-access-log. */
  disableAccessLog: boolean;
  /** The access-log line also carries the request body (vLLM's --enable-log-requests). */
  logRequests: boolean;
  /** Characters of a logged request body kept (vLLM's --max-log-len); null = all. */
  maxLogLen: number | null;
  apiKey: string | null;
  disableTokenizerAutoload: boolean;
  /** HTTP workers: one attempt per request (SMG --disable-retries). */
  disableRetries: boolean;
  /** HTTP workers: no per-worker circuit breaker (SMG --disable-circuit-breaker). */
  disableCircuitBreaker: boolean;
  /** Attempts in all per request, first included (SMG's --retry-max-retries, default 5). */
  retryMaxRetries: number;
  retryInitialBackoffMs: number;
  retryMaxBackoffMs: number;
  retryBackoffMultiplier: number;
  retryJitterFactor: number;
  /** Consecutive failures that open a worker's breaker. */
  cbFailureThreshold: number;
  /** Consecutive half-open successes that close it. */
  cbSuccessThreshold: number;
  /** Seconds an open breaker waits before its half-open probe. */
  cbTimeoutDurationSecs: number;
  /** A failure older than this restarts the consecutive-failure count. */
  cbWindowDurationSecs: number;
  /** Headers read for the routing key, first valid one wins (SMG --routing-key-headers). */
  routingKeyHeaders: string[];
  /** Kubernetes pod discovery (SMG --service-discovery and friends). */
  serviceDiscovery: boolean;
  /** key=value label selectors a pod must all match. */
  selector: string[];
  /** Port of a discovered pod without a smg.ai/worker-ports annotation. */
  serviceDiscoveryPort: number;
  /** Namespace watched; null = all namespaces. */
  serviceDiscoveryNamespace: string | null;
  /** `namespace`, `label:<key>` or `annotation:<key>`: a discovered worker's model id. */
  modelIdFrom: string | null;
  /** Per handshake message (SMG fixes 600 s). */
  zmqStageTimeoutSecs: number;
  /** Output silence with requests in flight that counts as engine death (SMG fixes 300 s). */
  zmqSilenceTimeoutSecs: number;
  /** Request bodies above this are refused with 413. */
  maxBodyBytes: number;
  /** Where /v1/responses and /v1/conversations keep state (SMG's --history-backend). */
  historyBackend: HistoryBackend;
  /** postgres:// URL of the history database (--history-backend postgres). */
  postgresDbUrl: string | null;
  /** Connections in the history pool (SMG's default 16). */
  postgresPoolMax: number;
  /** CORS (gateway/middleware/cors-policy.ts): no origin = off. Values may be JSON lists (vLLM's form). */
  corsAllowedOrigins: string[];
  corsAllowedMethods: string[];
  corsAllowedHeaders: string[];
  corsAllowCredentials: boolean;
  /** OpenTelemetry (src/tracing/): on with an endpoint (vLLM) or with enableTrace (SMG). */
  enableTrace: boolean;
  otlpTracesEndpoint: string | null;
  /** vLLM's metric names beside SMG's (gateway/vllm-metrics.ts) are on unless this is set. */
  disableVllmMetrics: boolean;
}

export function defaultGatewayConfig(): GatewayConfig {
  return {
    host: '0.0.0.0',
    port: 30000,
    workerUrls: [],
    backend: null,
    modelPath: null,
    servedModelNames: [],
    tokenizerPath: null,
    chatTemplate: null,
    chatTemplateContentFormat: 'auto',
    reasoningParser: null,
    toolCallParser: null,
    policy: 'cache_aware',
    prefixTokenCount: 256,
    prefixHashLoadFactor: 1.25,
    assignmentMode: 'random',
    maxIdleSecs: 14400,
    zmqEngineCount: null,
    dpAware: false,
    disableHealthCheck: false,
    removeUnhealthyWorkers: false,
    healthCheckIntervalSecs: 60,
    healthCheckTimeoutSecs: 5,
    healthFailureThreshold: 3,
    healthSuccessThreshold: 2,
    healthCheckEndpoint: '/health',
    healthCheckPort: null,
    workerStartupTimeoutSecs: 1800,
    workerStartupCheckInterval: 30,
    prometheusHost: '0.0.0.0',
    prometheusPort: 29000,
    requestTimeoutSecs: 1800,
    incrementalStreamingOutput: false,
    shutdownGracePeriodSecs: 180,
    drainSettleSecs: 5,
    maxConcurrentRequests: -1,
    maxConnections: null,
    queueSize: 100,
    queueTimeoutSecs: 60,
    rateLimitTokensPerSecond: null,
    logLevel: 'info',
    logJson: false,
    logDir: null,
    disableAccessLog: false,
    logRequests: false,
    maxLogLen: null,
    apiKey: null,
    disableTokenizerAutoload: false,
    disableRetries: false,
    disableCircuitBreaker: false,
    // SMG's defaults (smg-project/smg model_gateway/src/main.rs, Retry / Circuit Breaker flags).
    retryMaxRetries: 5,
    retryInitialBackoffMs: 50,
    retryMaxBackoffMs: 30000,
    retryBackoffMultiplier: 1.5,
    retryJitterFactor: 0.2,
    cbFailureThreshold: 10,
    cbSuccessThreshold: 3,
    cbTimeoutDurationSecs: 60,
    cbWindowDurationSecs: 120,
    routingKeyHeaders: ['x-smg-routing-key'],
    serviceDiscovery: false,
    selector: [],
    serviceDiscoveryPort: 80,
    serviceDiscoveryNamespace: null,
    modelIdFrom: null,
    zmqStageTimeoutSecs: 600,
    zmqSilenceTimeoutSecs: 300,
    maxBodyBytes: 32 * 1024 * 1024,
    historyBackend: 'memory',
    postgresDbUrl: null,
    postgresPoolMax: 16,
    corsAllowedOrigins: [],
    corsAllowedMethods: [],
    corsAllowedHeaders: [],
    corsAllowCredentials: false,
    enableTrace: false,
    otlpTracesEndpoint: null,
    disableVllmMetrics: false,
  };
}

/** Re-probe delay after an engine dies (ours: SMG waits for the next 60 s probe). */
const DEAD_REPROBE_MS = 1000;

export function workersConfigOf(cfg: GatewayConfig): WorkersConfig {
  return {
    modelPath: cfg.modelPath,
    servedModelNames: cfg.servedModelNames,
    tokenizerPath: cfg.tokenizerPath,
    chatTemplate: cfg.chatTemplate,
    chatTemplateContentFormat: cfg.chatTemplateContentFormat,
    policy: cfg.policy,
    policyOptions: {
      prefixTokenCount: cfg.prefixTokenCount,
      prefixHashLoadFactor: cfg.prefixHashLoadFactor,
      assignmentMode: cfg.assignmentMode,
      maxIdleSecs: cfg.maxIdleSecs,
    },
    dpAware: cfg.dpAware,
    disableHealthCheck: cfg.disableHealthCheck,
    removeUnhealthyWorkers: cfg.removeUnhealthyWorkers,
    health: {
      timeoutSecs: cfg.healthCheckTimeoutSecs,
      intervalSecs: cfg.healthCheckIntervalSecs,
      successThreshold: cfg.healthSuccessThreshold,
      failureThreshold: cfg.healthFailureThreshold,
    },
    drainSettleSecs: cfg.drainSettleSecs,
    drainTimeoutSecs: cfg.shutdownGracePeriodSecs,
    disableTokenizerAutoload: cfg.disableTokenizerAutoload,
    zmqStageTimeoutSecs: cfg.zmqStageTimeoutSecs,
    zmqSilenceTimeoutSecs: cfg.zmqSilenceTimeoutSecs,
    deadReprobeMs: DEAD_REPROBE_MS,
    startupTimeoutSecs: cfg.workerStartupTimeoutSecs,
    startupCheckIntervalSecs: cfg.workerStartupCheckInterval,
    healthCheckEndpoint: cfg.healthCheckEndpoint,
    circuitBreaker: cfg.disableCircuitBreaker
      ? null
      : {
          failureThreshold: Math.max(1, cfg.cbFailureThreshold),
          successThreshold: Math.max(1, cfg.cbSuccessThreshold),
          timeoutMs: cfg.cbTimeoutDurationSecs * 1000,
          windowMs: cfg.cbWindowDurationSecs * 1000,
        },
  };
}

/** The forwarder's retry settings; a single attempt with --disable-retries. */
export function retryConfigOf(cfg: GatewayConfig): RetryConfig {
  return {
    maxRetries: cfg.disableRetries ? 1 : Math.max(1, cfg.retryMaxRetries),
    initialBackoffMs: cfg.retryInitialBackoffMs,
    maxBackoffMs: cfg.retryMaxBackoffMs,
    backoffMultiplier: cfg.retryBackoffMultiplier,
    jitterFactor: cfg.retryJitterFactor,
  };
}
