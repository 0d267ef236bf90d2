/**
 * The stored-response endpoints, as SMG answers them (model_gateway/src/routers/responses/handlers.rs
 * and grpc/common/responses/handlers.rs):
 *
 * - GET /v1/responses/{id}: the stored response object; unknown → 404 "No response found with id '…'".
 * - DELETE /v1/responses/{id}: `{id, object: "response.deleted", deleted: true}`; unknown → 404.
 * - GET /v1/responses/{id}/input_items: that turn's input items, paginated as OpenAI's lists
 *   (SMG returns them all with has_more false; limit/order/after are OpenAI's).
 * - POST /v1/responses/{id}/cancel: nothing runs in the background, so nothing can be cancelled:
 *   a completed response → 400 response_already_completed, a failed one → 400
 *   response_already_failed, any other → 400 cancellation_not_supported; unknown → 404
 *   response_not_found.
 */
import { PipelineError } from '../../pipeline/errors.js';
import { listBody, listParams, pageOf } from '../list-params.js';
import { storeRoute } from '../store-handler.js';
import { storeCall } from './store-errors.js';

const noResponse = (id: string) => new PipelineError(404, 'not_found', `No response found with id '${id}'`, true);

export const getResponse = storeRoute('GET /v1/responses/{response_id}', async ({ store, params }) => {
  const r = await storeCall(() => store.getResponse(params.id));
  if (!r) throw noResponse(params.id);
  return Response.json(r.raw);
});

export const deleteResponse = storeRoute('DELETE /v1/responses/{response_id}', async ({ store, params }) => {
  const deleted = await storeCall(() => store.deleteResponse(params.id));
  if (!deleted) throw noResponse(params.id);
  return Response.json({ id: params.id, object: 'response.deleted', deleted: true });
});

export const listInputItems = storeRoute('GET /v1/responses/{response_id}/input_items', async ({ store, params, query }) => {
  const page = listParams(query);
  const r = await storeCall(() => store.getResponse(params.id));
  if (!r) throw noResponse(params.id);
  const { page: data, hasMore } = pageOf(r.input, page);
  return Response.json(listBody(data, hasMore));
});

export const cancelResponse = storeRoute('POST /v1/responses/{response_id}/cancel', async ({ store, params }) => {
  const r = await storeCall(() => store.getResponse(params.id));
  if (!r) throw new PipelineError(404, 'response_not_found', `Response with id '${params.id}' not found`, true);
  switch (r.raw.status) {
    case 'completed':
      throw new PipelineError(400, 'response_already_completed', 'Cannot cancel completed response', true);
    case 'failed':
      throw new PipelineError(400, 'response_already_failed', 'Cannot cancel failed response', true);
    default:
      throw new PipelineError(400, 'cancellation_not_supported', 'Background mode is not supported. Synchronous and streaming responses cannot be cancelled.', true);
  }
});
