/**
 * What the request pipeline needs from the running gateway, as interfaces the pipeline owns: the
 * gateway (and tests) implement them, so no import runs from the pipeline up to the gateway.
 *
 *   api handler → pipeline (prepare → generate) → services.workers.pickWorker → worker.acquireClient() → engine
 */
import type { EngineClientApi } from '../engine/client-types.js';
import type { RuntimeType } from '../engine/types.js';
import type { Logger } from '../util/logger.js';
import type { RequestNeeds } from '../workers/capabilities.js';
import type { TokenizerRegistry } from '../workers/tokenizer-registry.js';
import type { RouterMetrics } from './metrics.js';
import type { ConfiguredParsers } from './parsers/resolve.js';

/** What the pipeline may do with a picked worker. */
export interface RoutedWorker {
  readonly id: string;
  readonly url: string;
  readonly modelId: string;
  readonly runtime: RuntimeType;
  /**
   * The live engine client. Throws HandshakePendingError (500 `get_backend_client_failed`) when
   * the handshake has not completed; never waits for it.
   */
  acquireClient(): EngineClientApi;
  /** Call once per request; call the returned function when the response is done (idempotent). */
  trackRequest(): () => void;
}

export interface WorkerPool {
  /**
   * A ready worker for `model` chosen by the configured policy, among those whose runtime can
   * serve `needs` when any can; null when none is ready. Throws RoutingError when the policy
   * refuses the request's routing headers.
   */
  pickWorker(model: string | null, tokenIds?: readonly number[], needs?: RequestNeeds, exclude?: ReadonlySet<string>): RoutedWorker | null;
  /** Canonical model ids of all registered workers. */
  modelIds(): string[];
  /** The canonical id `name` (id, served name or alias) refers to; null when no worker serves it. */
  resolveModel(name: string): string | null;
  /** Why no worker of a known `model` is ready, in words (for the 503). */
  unavailableReason(model: string): string;
  /** The error of the model's failed tokenizer load, or null. */
  tokenizerFailure(model: string): string | null;
  /** Smallest max_model_len the model's connected engines reported; null before any handshake. */
  maxModelLen(model: string): number | null;
  /** Largest max_model_len of the model's connected engines (what a prompt must fit at best). */
  largestModelLen?(model: string): number | null;
  /** Parser names configured for `model`: model card / worker labels, else the gateway flags (§11.1). */
  configuredParsers(model: string): ConfiguredParsers;
}

/** The gateway settings the pipeline reads. */
export interface PipelineConfig {
  requestTimeoutSecs: number;
  /** /generate streams deltas instead of the cumulative text unless the request says otherwise. */
  incrementalStreamingOutput: boolean;
  /** Attempts in all for a request whose engine dies before its first token (optional: 1). */
  retryMaxRetries?: number;
  disableRetries?: boolean;
}

export interface PipelineServices {
  config: PipelineConfig;
  logger: Logger;
  workers: WorkerPool;
  tokenizers: TokenizerRegistry;
  metrics: RouterMetrics;
}
