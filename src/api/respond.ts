/**
 * The part of every generating endpoint after the request is prepared: start the generation, then
 * answer in the protocol's own shapes — one JSON body, or SSE written straight to the Node
 * response (or, without one, through a web stream).
 */
import { AsyncQueue } from '../pipeline/async-queue.js';
import { type Collected, ChoiceCollector } from '../pipeline/collect.js';
import { PipelineError, streamError } from '../pipeline/errors.js';
import type { GenEvent, GenerationSink } from '../pipeline/events.js';
import type { GenerationSpec } from '../pipeline/generation-spec.js';
import { type EndpointLabel, type Run, startGeneration } from '../pipeline/run.js';
import { persistBeforeEnd } from './persist-sink.js';
import { type RawSseOptions, RawSseWriter } from './raw-sse.js';
import { requestRecord } from './request-record.js';
import { type SseEncoder, sseResponse } from './sse.js';
import type { InferenceCall, InferenceHandler } from './types.js';

export interface Responder {
  endpoint: EndpointLabel;
  /** Choices in the response, and how many share one prompt (usage per prompt). */
  choices: number;
  perPrompt: number;
  /** Streaming: the SSE encoder of this response. */
  sse(): SseEncoder;
  /** Non-streaming: the whole response body. */
  json(collected: Collected): unknown;
  /** The protocol's error answer (its envelope and status). */
  error(err: PipelineError): Response;
  /** Runs on the finished result before the client sees the end (Responses: store the turn). */
  persist?: (collected: Collected) => Promise<void>;
}

export async function respond(call: InferenceCall, spec: GenerationSpec, responder: Responder): Promise<Response> {
  const { worker } = spec;
  const headers = { 'x-request-id': call.requestId };
  // Token counts for the access log; with no access log, no record and no wrapper around every event.
  const record = call.recorded !== false ? requestRecord(call.request) : null;
  if (record) record.worker = worker.url;
  const { persist } = responder;
  const start = (sink: GenerationSink) =>
    startGeneration(
      spec,
      { signal: call.signal, services: call.services, endpoint: responder.endpoint },
      counted(persist ? persistBeforeEnd(sink, responder.choices, responder.perPrompt, persist) : sink, record, responder.perPrompt),
    );

  if (!spec.stream) {
    const collector = new ChoiceCollector(responder.choices, responder.perPrompt);
    const run = start(collector);
    try {
      return Response.json(responder.json(await collector.result), { headers });
    } catch (err) {
      throw streamError(err, worker.url);
    } finally {
      run.done();
    }
  }

  // TokenSpeed refuses what it cannot serve (logprobs without --enable-output-logprobs, a grammar
  // without xgrammar, …) with an `abort` row before any token. Holding the head until the first
  // event keeps that a proper 4xx instead of an error frame after a committed 200.
  const lazyHead = worker.runtime === 'tokenspeed';
  const raw = call.raw;
  if (raw) {
    const stream = new RawStream(call, responder, worker.url, headers, lazyHead);
    const writer = new RawSseWriter(raw, responder.sse(), stream);
    stream.run = start(writer);
    writer.begin();
    if (stream.closed) stream.run.done();
    // A client that leaves mid-stream aborts the run through call.signal (gateway/close-signal.ts).
    return raw.sent;
  }

  const events = new AsyncQueue<GenEvent>();
  const run = start({ push: (ev) => events.push(ev), end: () => events.end(), fail: (err) => events.fail(err) });
  if (lazyHead) {
    try {
      await events.whenReady();
    } catch (err) {
      run.done();
      throw streamError(err, worker.url);
    }
  }
  return sseResponse(events, responder.sse(), { onCancel: run.abort, onClose: run.done, headers });
}

function counted(sink: GenerationSink, record: ReturnType<typeof requestRecord> | null, perPrompt: number): GenerationSink {
  return record ? new CountedSink(sink, record, perPrompt) : sink;
}

/**
 * Token counts for the access log, from each choice's end (choices sharing a prompt count it
 * once). Classes here rather than closures: one of each is made per request, and under tsx
 * (esbuild keepNames) every closure made at run time also gets its own `name` property, a
 * dictionary of ~250 bytes each (a heap diff at 1,000 open streams, issue 30).
 */
class CountedSink implements GenerationSink {
  constructor(
    private readonly sink: GenerationSink,
    private readonly record: ReturnType<typeof requestRecord>,
    private readonly perPrompt: number,
  ) {}

  push(ev: GenEvent): void {
    if (ev.kind === 'end') {
      const record = this.record;
      record.promptTokens = (record.promptTokens ?? 0) + ev.promptTokens / this.perPrompt;
      record.completionTokens = (record.completionTokens ?? 0) + ev.completionTokens;
    }
    this.sink.push(ev);
  }

  end(): void {
    this.sink.end();
  }

  fail(err: unknown): void {
    this.sink.fail(err);
  }
}

/** A response streamed straight to the Node response: the writer's options and its run. */
class RawStream implements RawSseOptions {
  run: Run | null = null;
  closed = false;

  constructor(
    private readonly call: InferenceCall,
    private readonly responder: Responder,
    private readonly workerUrl: string,
    readonly headers: Record<string, string>,
    readonly lazyHead: boolean,
  ) {}

  errorResponse(err: unknown): Response {
    return this.responder.error(streamError(err, this.workerUrl));
  }

  onClose(): void {
    this.closed = true;
    this.run?.done();
  }

  /**
   * This request's own failure (its encoder or socket threw): logged, its engine requests
   * aborted; the shared loop that called the writer goes on with the other requests.
   */
  onBroken(err: unknown): void {
    this.call.services.logger.error(
      { requestId: this.call.requestId, error: (err as Error)?.message ?? String(err), stack: (err as Error)?.stack },
      'writing the streamed response failed; the request is ended and its generation aborted',
    );
    this.run?.abort();
  }
}

/** Wraps an endpoint so every PipelineError it throws becomes the protocol's error response. */
export function withErrors(
  toResponse: (err: PipelineError) => Response,
  handle: (call: InferenceCall) => Promise<Response>,
): InferenceHandler {
  // `handle` is async (it never throws synchronously): a catch on its promise, not another frame.
  return (call) =>
    handle(call).catch((err: unknown) => {
      if (err instanceof PipelineError) return toResponse(err);
      throw err;
    });
}
