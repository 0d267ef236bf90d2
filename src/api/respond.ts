/**
 * The part of every generating endpoint after the request is prepared: start the generation, then
 * answer with SSE or one JSON body in the protocol's own shapes.
 */
import type { AsyncQueue } from '../pipeline/async-queue.js';
import { PipelineError, streamError } from '../pipeline/errors.js';
import type { GenEvent } from '../pipeline/events.js';
import type { GenerationSpec } from '../pipeline/generation-spec.js';
import { type EndpointLabel, startGeneration } from '../pipeline/run.js';
import { type SseEncoder, sseResponse } from './sse.js';
import type { InferenceCall, InferenceHandler } from './types.js';

export interface Responder {
  endpoint: EndpointLabel;
  /** Streaming: the SSE encoder of this response. */
  sse(): SseEncoder;
  /** Non-streaming: the whole response body. */
  json(events: AsyncQueue<GenEvent>): Promise<unknown>;
}

export async function respond(call: InferenceCall, spec: GenerationSpec, responder: Responder): Promise<Response> {
  const { worker } = spec;
  const run = startGeneration(spec, { signal: call.signal, services: call.services, endpoint: responder.endpoint });
  const headers = { 'x-request-id': call.requestId };

  if (spec.stream) {
    if (worker.runtime === 'tokenspeed') {
      // TokenSpeed refuses what it cannot serve (logprobs without --enable-output-logprobs, a
      // grammar without xgrammar, …) with an `abort` row before any token. Waiting for the first
      // event keeps that a proper 4xx instead of an error frame after a committed 200.
      try {
        await run.events.whenReady();
      } catch (err) {
        run.done();
        throw streamError(err, worker.url);
      }
    }
    return sseResponse(run.events, responder.sse(), { onCancel: run.abort, onClose: run.done, headers });
  }
  try {
    return Response.json(await responder.json(run.events), { headers });
  } catch (err) {
    throw streamError(err, worker.url);
  } finally {
    run.done();
  }
}

/** Wraps an endpoint so every PipelineError it throws becomes the protocol's error response. */
export function withErrors(
  toResponse: (err: PipelineError) => Response,
  handle: (call: InferenceCall) => Promise<Response>,
): InferenceHandler {
  return async (call) => {
    try {
      return await handle(call);
    } catch (err) {
      if (err instanceof PipelineError) return toResponse(err);
      throw err;
    }
  };
}
