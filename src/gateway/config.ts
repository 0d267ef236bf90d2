/**
 * The gateway's settings (what `smg launch` flags become, and what `smg serve` builds for its
 * in-process gateway). Defaults follow cli-and-api §4.2.
 */
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
  shutdownGracePeriodSecs: number;
  /** Shutdown: how long /readiness says `draining` before the listener stops; worker-drain default. */
  drainSettleSecs: number;
  /** -1 (or any value < 1) = no cap. */
  maxConcurrentRequests: number;
  queueSize: number;
  queueTimeoutSecs: number;
  /** Token-bucket refill per second under --max-concurrent-requests; null/0 = permits only return on completion. */
  rateLimitTokensPerSecond: number | null;
  logLevel: string;
  logJson: boolean;
  /** Also write log lines to a daily file `<dir>/smg.<YYYY-MM-DD>`; null = stdout only. */
  logDir: string | null;
  apiKey: string | null;
  disableTokenizerAutoload: boolean;
  /** Accepted for `smg serve` compatibility; this gateway neither retries nor trips breakers. */
  disableRetries: boolean;
  disableCircuitBreaker: boolean;
  /** Per handshake message (SMG fixes 600 s). */
  zmqStageTimeoutSecs: number;
  /** Output silence with requests in flight that counts as engine death (SMG fixes 300 s). */
  zmqSilenceTimeoutSecs: number;
  /** Request bodies above this are refused with 413. */
  maxBodyBytes: number;
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
    shutdownGracePeriodSecs: 180,
    drainSettleSecs: 5,
    maxConcurrentRequests: -1,
    queueSize: 100,
    queueTimeoutSecs: 60,
    rateLimitTokensPerSecond: null,
    logLevel: 'info',
    logJson: false,
    logDir: null,
    apiKey: null,
    disableTokenizerAutoload: false,
    disableRetries: false,
    disableCircuitBreaker: false,
    zmqStageTimeoutSecs: 600,
    zmqSilenceTimeoutSecs: 300,
    maxBodyBytes: 32 * 1024 * 1024,
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
  };
}
