/**
 * The part of every generating endpoint after the request is built: start generation, tie it to
 * the client's connection and the worker's request count, then answer with SSE or one JSON body.
 */
import type { EngineClientApi } from '../../engine/client-types.js';
import type { InferenceCall, InferenceHandler, RoutedWorker } from '../../gateway/route-deps.js';
import type { Decoder } from '../detokenizer.js';
import type { AsyncQueue } from '../async-queue.js';
import { generate, type ChoiceSpec, type DecodeRules, type GenEvent } from '../generate.js';
import { ApiError } from './errors.js';
import { requestMetrics } from './request-metrics.js';
import { apiErrorResponse, streamError, submitError } from './respond-error.js';
import { sseResponse } from './sse.js';

export interface RunSpec<M> {
  call: InferenceCall;
  worker: RoutedWorker;
  client: EngineClientApi;
  tokenizer: Decoder;
  choices: ChoiceSpec[];
  rules: DecodeRules;
  stream: boolean;
  /** Labels of the router metrics. */
  model: string;
  endpoint: 'chat_completions' | 'completions';
  meta: M;
  frames: (events: AsyncIterable<GenEvent>, meta: M) => AsyncGenerator<string>;
  collect: (events: AsyncIterable<GenEvent>, meta: M) => Promise<Record<string, unknown>>;
}

export async function runAndRespond<M>(spec: RunSpec<M>): Promise<Response> {
  const { call, worker } = spec;
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const done = worker.trackRequest();
  const finish = () => {
    done();
    call.signal.removeEventListener('abort', onClientGone);
  };
  const observer = requestMetrics(
    call.services.metrics,
    { backend_type: worker.runtime, model: spec.model, endpoint: spec.endpoint },
    spec.stream,
  );
  let events: AsyncQueue<GenEvent>;
  try {
    events = generate({
      client: spec.client,
      tokenizer: spec.tokenizer,
      choices: spec.choices,
      rules: spec.rules,
      signal: abort.signal,
      timeoutMs: call.services.config.requestTimeoutSecs * 1000,
      stream: spec.stream,
      observer,
    });
  } catch (err) {
    finish();
    observer.failedToStart(err);
    throw submitError(err);
  }
  const headers = { 'x-request-id': call.requestId };

  if (spec.stream) {
    if (worker.runtime === 'tokenspeed') {
      // TokenSpeed refuses what it cannot serve (logprobs without --enable-output-logprobs, a
      // grammar without xgrammar, …) with an `abort` row before any token. Waiting for the first
      // event keeps that a proper 4xx instead of an error frame after a committed 200.
      try {
        await events.whenReady();
      } catch (err) {
        finish();
        throw streamError(err, worker.url);
      }
    }
    const stream = events;
    const frames = (async function* () {
      try {
        yield* spec.frames(stream, spec.meta);
      } finally {
        finish();
      }
    })();
    return sseResponse(frames, () => abort.abort(), headers, () => stream.size > 0);
  }
  try {
    return Response.json(await spec.collect(events, spec.meta), { headers });
  } catch (err) {
    throw streamError(err, worker.url);
  } finally {
    finish();
  }
}

/** Wraps an endpoint so every ApiError it throws becomes its OpenAI error response. */
export function withApiErrors(handle: (call: InferenceCall) => Promise<Response>): InferenceHandler {
  return async (call) => {
    try {
      return await handle(call);
    } catch (err) {
      if (err instanceof ApiError) return apiErrorResponse(err);
      throw err;
    }
  };
}
