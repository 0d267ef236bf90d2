/**
 * The seam between the HTTP routes and the request pipeline. Routes stay thin: they hand the raw
 * fetch Request plus gateway services to a handler and return its Response. The pipeline never
 * sees Hono, and the gateway never sees prompts or tokens.
 *
 *   route → InferenceHandler (pipeline) → services.workers.pickWorker → worker.acquireClient() → engine
 */
import type { EngineClientApi } from '../engine/client-types.js';
import type { RuntimeType } from '../engine/types.js';
import type { Logger } from '../util/logger.js';
import type { TokenizerLoader, TokenizerRegistry } from '../workers/tokenizer-registry.js';
import type { GatewayConfig } from './config.js';
import type { RouterMetrics } from './metrics.js';

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
  /** A ready worker for `model` chosen by the configured policy; null → 404 model_not_found. */
  pickWorker(model: string | null, tokenIds?: readonly number[]): RoutedWorker | null;
  /** Model ids of all registered workers. */
  modelIds(): string[];
}

export interface GatewayServices {
  config: GatewayConfig;
  logger: Logger;
  workers: WorkerPool;
  tokenizers: TokenizerRegistry;
  metrics: RouterMetrics;
}

export interface InferenceCall {
  /** The client's request, body unread. */
  request: Request;
  /** From x-request-id / x-correlation-id / x-trace-id / request-id, else generated; echoed back. */
  requestId: string;
  /** Aborts when the client disconnects (and on forced shutdown). */
  signal: AbortSignal;
  services: GatewayServices;
}

export type InferenceHandler = (call: InferenceCall) => Promise<Response>;

export type InferenceEndpoint = 'chat_completions' | 'completions' | 'messages' | 'generate' | 'responses';

export interface RouteDeps {
  /** Endpoint handlers; an endpoint without one answers 501. */
  inference?: Partial<Record<InferenceEndpoint, InferenceHandler>>;
  /** Loads a model's tokenizer when its first worker registers (unless --disable-tokenizer-autoload). */
  loadTokenizer?: TokenizerLoader;
}

/** Public path of each inference endpoint. */
export const INFERENCE_PATHS: Record<InferenceEndpoint, string> = {
  chat_completions: '/v1/chat/completions',
  completions: '/v1/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
  generate: '/generate',
};
