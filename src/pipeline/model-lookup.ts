/**
 * The steps every inference request shares before it has tokens to send: find the model's
 * tokenizer, pick a ready worker and take its live engine client.
 */
import type { EngineClientApi } from '../engine/client-types.js';
import type { RequestNeeds } from '../workers/capabilities.js';
import { PipelineError } from './errors.js';
import type { ModelContext } from './model-context.js';
import type { PipelineServices, RoutedWorker } from './services.js';

export function modelContextFor(services: PipelineServices, model: string): ModelContext {
  const ctx = services.tokenizers.get(model) as ModelContext | undefined;
  if (ctx) return ctx;
  if (services.workers.modelIds().includes(model)) {
    throw new PipelineError(503, 'tokenizer_not_ready', `Tokenizer for model '${model}' is not loaded yet`);
  }
  throw new PipelineError(404, 'model_not_found', `No worker available for model '${model}'`);
}

export interface Acquired {
  worker: RoutedWorker;
  client: EngineClientApi;
}

/** `needs`: what the request asks of the engine (logprob depth, prompt logprobs), for routing. */
export function acquireWorker(services: PipelineServices, model: string, tokenIds: readonly number[], needs?: RequestNeeds): Acquired {
  const worker = services.workers.pickWorker(model, tokenIds, needs);
  if (!worker) throw new PipelineError(404, 'model_not_found', `No worker available for model '${model}'`);
  try {
    return { worker, client: worker.acquireClient() };
  } catch (err) {
    throw new PipelineError(500, 'get_backend_client_failed', `Failed to get backend client: ${(err as Error).message}`);
  }
}
