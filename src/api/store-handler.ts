/**
 * The seam for the routes over the history store (GET/DELETE /v1/responses/{id}, the
 * /v1/conversations family): a handler gets the store, the path parameters, the query and the
 * request, and never sees Hono. Errors are answered in OpenAI's envelope.
 */
import type { HistoryStore } from '../history/types.js';
import { PipelineError, jsonParseError } from '../pipeline/errors.js';
import { openaiErrorResponse } from './openai/errors.js';
import { storeError } from './responses/store-errors.js';

export interface StoreCall {
  store: HistoryStore;
  params: Record<string, string>;
  query: URLSearchParams;
  request: Request;
}

export type StoreHandler = (call: StoreCall) => Promise<Response>;

/** Every failure as an OpenAI error; `--history-backend none` refuses with a 400 that names the flag. */
export function storeRoute(what: string, handle: StoreHandler): (store: HistoryStore | undefined, call: Omit<StoreCall, 'store'>) => Promise<Response> {
  return async (store, call) => {
    try {
      if (!store || store.backend === 'none') {
        throw new PipelineError(400, 'history_disabled', `${what} is not available: this gateway runs with --history-backend none and keeps no responses or conversations`, true);
      }
      return await handle({ ...call, store });
    } catch (err) {
      return openaiErrorResponse(storeError(err));
    }
  };
}

/** A JSON object body; an empty body is `{}` (clients send none to create an empty conversation). */
export async function readObjectBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw jsonParseError('Invalid JSON data: request body must be a JSON object');
  return v as Record<string, unknown>;
}
