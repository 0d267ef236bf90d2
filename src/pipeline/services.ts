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
   * serve `needs` when any can; null → 404 model_not_found.
   */
  pickWorker(model: string | null, tokenIds?: readonly number[], needs?: RequestNeeds): RoutedWorker | null;
  /** Model ids of all registered workers. */
  modelIds(): string[];
  /** Parser names configured for `model`: model card / worker labels, else the gateway flags (§11.1). */
  configuredParsers(model: string): ConfiguredParsers;
}

/** The gateway settings the pipeline reads. */
export interface PipelineConfig {
  requestTimeoutSecs: number;
}

export interface PipelineServices {
  config: PipelineConfig;
  logger: Logger;
  workers: WorkerPool;
  tokenizers: TokenizerRegistry;
  metrics: RouterMetrics;
}
