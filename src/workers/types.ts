/**
 * Shapes shared across the worker layer: statuses, the parsed worker spec (API body or startup URL),
 * and the health settings after per-worker overrides are merged onto the gateway defaults.
 */

import type { BreakerConfig } from './circuit-breaker.js';

export type WorkerStatus = 'pending' | 'ready' | 'not_ready' | 'failed' | 'draining';

export type JobType = 'AddWorker' | 'UpdateWorker' | 'RemoveWorker';

/** Runtime names a spec may carry; only vllm and tokenspeed have a ZMQ dialect. */
export const KNOWN_RUNTIMES = ['sglang', 'vllm', 'trtllm', 'tokenspeed', 'mlx'] as const;
export type SpecRuntime = (typeof KNOWN_RUNTIMES)[number];

export const WORKER_TYPES = ['regular', 'prefill', 'decode', 'encode'] as const;
export type WorkerType = (typeof WORKER_TYPES)[number];

/** Per-worker health overrides as sent on the wire (all optional). */
export interface HealthSpec {
  timeout_secs?: number;
  check_interval_secs?: number;
  success_threshold?: number;
  failure_threshold?: number;
  disable_health_check?: boolean;
  drain_settle_secs?: number;
}

export interface ResolvedHealth {
  timeoutSecs: number;
  intervalSecs: number;
  successThreshold: number;
  failureThreshold: number;
  drainSettleSecs: number;
}

/** A worker spec after JSON decoding; field names follow the API (snake_case on the wire). */
export interface WorkerSpec {
  url: string;
  runtimeType: SpecRuntime | null;
  connectionMode: string | null;
  zmqHandshakeAddress: string | null;
  dpSize: number | null;
  workerType: WorkerType;
  modelId: string | null;
  /**
   * `served_model_name` (a string or a list, as vLLM's flag): the first is the id the API reports,
   * every one is accepted as a request's `model`. Null when absent.
   */
  servedModelName: string[] | null;
  labels: Record<string, string>;
  /** Model cards as sent; only `id` is interpreted here. */
  models: Array<Record<string, unknown>>;
  priority: number;
  cost: number;
  apiKey: string | null;
  health: HealthSpec;
}

export function defaultSpec(url: string): WorkerSpec {
  return {
    url,
    runtimeType: null,
    connectionMode: null,
    zmqHandshakeAddress: null,
    dpSize: null,
    workerType: 'regular',
    modelId: null,
    servedModelName: null,
    labels: {},
    models: [],
    priority: 50,
    cost: 1.0,
    apiKey: null,
    health: {},
  };
}

/** Gateway-wide settings the worker layer needs (a slice of the gateway config). */
export interface WorkersConfig {
  modelPath: string | null;
  /** --served-model-name: the API names of workers that carry no model identity of their own. */
  servedModelNames: readonly string[];
  tokenizerPath: string | null;
  chatTemplate: string | null;
  /** --chat-template-content-format. */
  chatTemplateContentFormat?: 'auto' | 'string' | 'openai';
  policy: PolicyName;
  /** Settings of the hashing and sticky policies (consistent_hashing, prefix_hash, manual). */
  policyOptions: PolicyOptions;
  dpAware: boolean;
  disableHealthCheck: boolean;
  removeUnhealthyWorkers: boolean;
  health: Omit<ResolvedHealth, 'drainSettleSecs'>;
  drainSettleSecs: number;
  /** Upper bound on waiting for a removed worker's in-flight requests (the shutdown grace period). */
  drainTimeoutSecs: number;
  disableTokenizerAutoload: boolean;
  zmqStageTimeoutSecs: number;
  zmqSilenceTimeoutSecs: number;
  /** Delay before the re-probe that follows an engine death (ours; SMG waits a full interval). */
  deadReprobeMs: number;
  /** --worker-startup-timeout-secs: a worker still pending this long after registering fails. */
  startupTimeoutSecs: number;
  /** --worker-startup-check-interval: probe interval while a worker is pending (capped by the health interval). */
  startupCheckIntervalSecs: number;
  /** --health-check-endpoint: the path an HTTP worker is probed on. */
  healthCheckEndpoint: string;
  /** Per-HTTP-worker circuit breaker settings; null with --disable-circuit-breaker. */
  circuitBreaker: BreakerConfig | null;
}

export const POLICY_NAMES = [
  'cache_aware',
  'random',
  'round_robin',
  'power_of_two',
  'least_load',
  'passthrough',
  'consistent_hashing',
  'prefix_hash',
  'manual',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** How `manual` places a routing key it has not seen (SMG's --assignment-mode). */
export const ASSIGNMENT_MODES = ['random', 'min_load', 'min_group'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];

export interface PolicyOptions {
  /** prefix_hash: leading prompt tokens hashed (SMG --prefix-token-count, default 256). */
  prefixTokenCount: number;
  /** prefix_hash: a ring target above this multiple of the mean load is skipped (default 1.25). */
  prefixHashLoadFactor: number;
  /** manual: where a new routing key goes. */
  assignmentMode: AssignmentMode;
  /** manual: a key unused this long is forgotten (SMG --max-idle-secs, default 4 h; 0 = never). */
  maxIdleSecs: number;
}

export function defaultPolicyOptions(): PolicyOptions {
  return { prefixTokenCount: 256, prefixHashLoadFactor: 1.25, assignmentMode: 'random', maxIdleSecs: 14400 };
}
