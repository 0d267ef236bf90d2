/**
 * The gateway's settings (what `smg launch` flags become, and what `smg serve` builds for its
 * in-process gateway). Defaults follow cli-and-api §4.2.
 */
import type { PolicyName, WorkersConfig } from '../workers/types.js';

export interface GatewayConfig {
  host: string;
  port: number;
  workerUrls: string[];
  /** --backend / --runtime: vllm|tokenspeed pin the startup ZMQ workers' runtime; else unset. */
  backend: string | null;
  modelPath: string | null;
  tokenizerPath: string | null;
  chatTemplate: string | null;
  reasoningParser: string | null;
  toolCallParser: string | null;
  policy: PolicyName;
  /** Grouped engine count for every startup ipc:// URL; null = 1. */
  zmqEngineCount: number | null;
  dpAware: boolean;
  disableHealthCheck: boolean;
  removeUnhealthyWorkers: boolean;
  healthCheckIntervalSecs: number;
  healthCheckTimeoutSecs: number;
  healthFailureThreshold: number;
  healthSuccessThreshold: number;
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
  logLevel: string;
  logJson: boolean;
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
    tokenizerPath: null,
    chatTemplate: null,
    reasoningParser: null,
    toolCallParser: null,
    policy: 'cache_aware',
    zmqEngineCount: null,
    dpAware: false,
    disableHealthCheck: false,
    removeUnhealthyWorkers: false,
    healthCheckIntervalSecs: 60,
    healthCheckTimeoutSecs: 5,
    healthFailureThreshold: 3,
    healthSuccessThreshold: 2,
    prometheusHost: '0.0.0.0',
    prometheusPort: 29000,
    requestTimeoutSecs: 1800,
    shutdownGracePeriodSecs: 180,
    drainSettleSecs: 5,
    maxConcurrentRequests: -1,
    queueSize: 100,
    queueTimeoutSecs: 60,
    logLevel: 'info',
    logJson: false,
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
    tokenizerPath: cfg.tokenizerPath,
    chatTemplate: cfg.chatTemplate,
    policy: cfg.policy,
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
  };
}
