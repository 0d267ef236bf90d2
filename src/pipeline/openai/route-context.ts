/**
 * The steps every inference endpoint shares before it has tokens to send: read the body, find the
 * model's tokenizer, pick a ready worker and take its live engine client.
 */
import type { EngineClientApi } from '../../engine/client-types.js';
import type { GatewayServices, RoutedWorker } from '../../gateway/route-deps.js';
import type { ModelContext } from '../model-context.js';
import { ApiError } from './errors.js';

export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('application/json')) {
    throw new ApiError(400, 'json_parse_error', 'Missing Content-Type: application/json header', true);
  }
  const text = await request.text();
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ApiError(400, 'json_parse_error', `JSON syntax error: ${(err as Error).message}`, true);
  }
}

export function modelContextFor(services: GatewayServices, model: string): ModelContext {
  const ctx = services.tokenizers.get(model) as ModelContext | undefined;
  if (ctx) return ctx;
  if (services.workers.modelIds().includes(model)) {
    throw new ApiError(503, 'tokenizer_not_ready', `Tokenizer for model '${model}' is not loaded yet`);
  }
  throw new ApiError(404, 'model_not_found', `No worker available for model '${model}'`);
}

export interface Acquired {
  worker: RoutedWorker;
  client: EngineClientApi;
}

export function acquireWorker(services: GatewayServices, model: string, tokenIds: readonly number[]): Acquired {
  const worker = services.workers.pickWorker(model, tokenIds);
  if (!worker) throw new ApiError(404, 'model_not_found', `No worker available for model '${model}'`);
  try {
    return { worker, client: worker.acquireClient() };
  } catch (err) {
    throw new ApiError(500, 'get_backend_client_failed', `Failed to get backend client: ${(err as Error).message}`);
  }
}
