/**
 * One HTTP request's trace: a SERVER span named as vLLM names its request span (`llm_request`,
 * vllm/v1/engine/output_processor.py), child spans for the phases, and the W3C `traceparent` of
 * the caller as its parent. The trace rides the request's async context (AsyncLocalStorage), so
 * the pipeline marks phases with `tracePhase` without any parameter threaded through it.
 *
 * When tracing is off `activeTracer()` is null: no trace is made, `currentTrace()` is undefined
 * without touching the async context, and `tracePhase` calls its function directly.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { activeTracer } from './tracer.js';

const propagator = new W3CTraceContextPropagator();

/** A performance.now() reading as the epoch milliseconds (with fraction) spans are stamped with. */
export function spanTime(perfMs: number): number {
  return performance.timeOrigin + perfMs;
}

/** Ends `span` at `perfMs` (performance.now() ms, default now). */
export function endSpan(span: Span, perfMs = performance.now()): void {
  span.end(spanTime(perfMs));
}
const store = new AsyncLocalStorage<RequestTrace>();

const headerGetter: TextMapGetter<Headers> = {
  keys: (h) => [...h.keys()],
  get: (h, key) => h.get(key) ?? undefined,
};
const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

export class RequestTrace {
  readonly root: Span;
  /** performance.now() when the request arrived. */
  readonly startedPerf = performance.now();
  private readonly ctx: Context;
  private ended = false;
  /** Parties that must let go before the span ends: the route's handler, and a generation. */
  private holders = 1;
  private status: number | undefined;

  constructor(name: string, parent: Context, attributes: Attributes) {
    const tracer = activeTracer();
    if (!tracer) throw new Error('tracing is off');
    // Every time is given as epoch milliseconds from the one monotonic clock (spanTime): the SDK's
    // own default start is Date.now(), whole milliseconds, and its per-span offset for
    // performance times jitters by up to 1 ms, either of which misorders two short phases.
    this.root = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, startTime: spanTime(this.startedPerf) }, parent);
    this.ctx = trace.setSpan(ROOT_CONTEXT, this.root);
  }

  /** A child of the request span (`startPerf`: performance.now() ms, default now); end it with `endSpan`. */
  child(name: string, startPerf = performance.now(), attributes?: Attributes): Span {
    const tracer = activeTracer();
    if (!tracer || this.ended) return trace.wrapSpanContext(this.root.spanContext());
    return tracer.startSpan(name, { startTime: spanTime(startPerf), attributes }, this.ctx);
  }

  set(attributes: Attributes): void {
    if (!this.ended) this.root.setAttributes(attributes);
  }

  fail(message: string): void {
    if (!this.ended) this.root.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  /** A generation holds the span open until its response's last byte (see `release`). */
  hold(): void {
    this.holders++;
  }

  /**
   * One holder is done (`status`: the HTTP status, when this holder knows it). The span ends when
   * the last lets go: the handler returns before a stream's last byte, a JSON answer after its
   * generation ended; either way the span covers both and carries the status.
   */
  release(status?: number): void {
    if (status !== undefined) this.status = status;
    if (--this.holders > 0) return;
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    if (this.status !== undefined) {
      this.root.setAttribute('http.response.status_code', this.status);
      if (this.status >= 500) this.root.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.ended = true;
    this.root.end(spanTime(performance.now()));
  }

  /** `traceparent` (and `tracestate`) naming this request's span, for a call it makes upstream. */
  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    propagator.inject(this.ctx, out, recordSetter);
    return out;
  }
}

/**
 * A trace for an incoming request, parented on its `traceparent` when it has a valid one; null
 * when tracing is off.
 */
export function startRequestTrace(headers: Headers, attributes: Attributes): RequestTrace | null {
  if (activeTracer() === null) return null;
  const parent = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
  return new RequestTrace('llm_request', parent, attributes);
}

/** Runs `fn` (and everything it awaits) with `t` as the current trace. */
export function runWithTrace<T>(t: RequestTrace, fn: () => T): T {
  return store.run(t, fn);
}

/** The trace of the request being served, if tracing is on. */
export function currentTrace(): RequestTrace | undefined {
  return activeTracer() === null ? undefined : store.getStore();
}

/**
 * Runs `fn` inside a child span `name` of the current request (ended when `fn` returns or its
 * promise settles; a throw marks it as an error). Without a current trace: just `fn()`.
 */
export function tracePhase<T>(name: string, fn: () => T): T {
  const t = currentTrace();
  if (t === undefined) return fn();
  const span = t.child(name);
  const failed = (err: unknown) => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    endSpan(span);
  };
  let out: T;
  try {
    out = fn();
  } catch (err) {
    failed(err);
    throw err;
  }
  if (out instanceof Promise) {
    return out.then(
      (v: unknown) => {
        endSpan(span);
        return v;
      },
      (err: unknown) => {
        failed(err);
        throw err;
      },
    ) as T;
  }
  endSpan(span);
  return out;
}

/**
 * The W3C trace headers an HTTP forwarder (src/forward/) should send upstream for the request it
 * is serving: this gateway's request span as the parent. Empty when tracing is off or outside a
 * request; the forwarder then passes the client's own `traceparent` on unchanged.
 */
export function traceHeadersForUpstream(): Record<string, string> {
  return currentTrace()?.headers() ?? {};
}

/**
 * The trace headers to send upstream for a request that came with `incoming` headers: this
 * gateway's span as the parent while tracing is on, else the client's own `traceparent` /
 * `tracestate` unchanged, so a trace is never cut at the gateway either way.
 */
export function forwardTraceHeaders(incoming: Headers): Record<string, string> {
  const t = currentTrace();
  if (t) return t.headers();
  const out: Record<string, string> = {};
  const parent = incoming.get('traceparent');
  if (parent !== null) {
    out.traceparent = parent;
    const state = incoming.get('tracestate');
    if (state !== null) out.tracestate = state;
  }
  return out;
}
