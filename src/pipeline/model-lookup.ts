/**
 * The steps every inference request shares before it has tokens to send: name the model, find its
 * tokenizer, pick a ready worker and take its live engine client.
 */
import type { EngineClientApi } from '../engine/client-types.js';
import type { RequestNeeds } from '../workers/capabilities.js';
import { RoutingError } from '../workers/policies/routing-hints.js';
import { PipelineError, invalid } from './errors.js';
import type { ModelContext } from './model-context.js';
import type { PipelineServices, RoutedWorker } from './services.js';

/**
 * The canonical model id a request runs on. `requested` may be the id, any served name or a card
 * alias; empty means "the model" and is accepted when exactly one is served, as vLLM serves a
 * request without `model` with its only model. Responses and metrics report the canonical id.
 */
export function resolveRequestModel(services: PipelineServices, requested: string): string {
  if (requested === '') {
    const ids = services.workers.modelIds();
    if (ids.length === 1) return ids[0];
    if (ids.length === 0) throw new PipelineError(503, 'no_available_workers', 'No model is served yet');
    throw invalid(`model: required when more than one model is served (${ids.join(', ')})`, 'model');
  }
  const id = services.workers.resolveModel(requested);
  if (id === null) throw new PipelineError(404, 'model_not_found', `No worker available for model '${requested}'`);
  return id;
}

/** `model` is a canonical id (resolveRequestModel). */
export function modelContextFor(services: PipelineServices, model: string): ModelContext {
  const ctx = services.tokenizers.get(model) as ModelContext | undefined;
  if (ctx) return ctx;
  if (services.workers.modelIds().includes(model)) {
    const failed = services.workers.tokenizerFailure(model);
    if (failed !== null) {
      throw new PipelineError(503, 'tokenizer_not_ready', `Tokenizer for model '${model}' failed to load: ${failed}`);
    }
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
  let worker: RoutedWorker | null;
  try {
    worker = services.workers.pickWorker(model, tokenIds, needs);
  } catch (err) {
    if (err instanceof RoutingError) throw new PipelineError(503, 'no_available_workers', err.message);
    throw err;
  }
  if (!worker) {
    if (!services.workers.modelIds().includes(model)) {
      throw new PipelineError(404, 'model_not_found', `No worker available for model '${model}'`);
    }
    // The model is known: say which worker waits for what instead of pretending it does not exist.
    throw new PipelineError(
      503,
      'no_available_workers',
      `No ready worker for model '${model}': ${services.workers.unavailableReason(model)}`,
    );
  }
  try {
    return { worker, client: worker.acquireClient() };
  } catch (err) {
    throw new PipelineError(500, 'get_backend_client_failed', `Failed to get backend client: ${(err as Error).message}`);
  }
}
