/**
 * Starting a prepared generation for one HTTP request: submit it, tie it to the client's
 * connection (a disconnect aborts every choice), the worker's in-flight count and the router
 * metrics. Protocol-free: the front-end decides how to answer with the events.
 */
import type { CancelSignal } from './cancel-signal.js';
import { submitError } from './errors.js';
import type { GenerationSink } from './events.js';
import { startChoices } from './generate.js';
import type { GenerationSpec } from './generation-spec.js';
import { requestMetrics } from './metrics.js';
import type { PipelineServices } from './services.js';
import { GenerationTrace } from '../tracing/generation-trace.js';
import { currentTrace } from '../tracing/request-trace.js';
import type { GenerationObserver } from './generate.js';

/** Metrics label of the endpoint that asked. */
export type EndpointLabel = 'chat_completions' | 'completions' | 'messages' | 'responses' | 'generate';

export interface Run {
  /** Stops the generation (the response was cancelled); the sink gets `end`. */
  abort(): void;
  /** The response is complete or abandoned; idempotent. */
  done(): void;
}

/** Throws a PipelineError when the engine refuses the submission (nothing was sent back yet). */
export function startGeneration(
  spec: GenerationSpec,
  call: { signal: CancelSignal; services: PipelineServices; endpoint: EndpointLabel },
  sink: GenerationSink,
): Run {
  const { worker } = spec;
  let release = worker.trackRequest();
  const untrack = () => release();
  // An engine that dies before the first token costs the request nothing while another ready
  // worker of the model remains (SMG's retry budget, --retry-max-retries; off with --disable-retries).
  const cfg = call.services.config;
  const budget = cfg.disableRetries === true ? 1 : Math.max(1, cfg.retryMaxRetries ?? 1);
  const tried = new Set<string>([worker.id]);
  const reroute = () => {
    if (tried.size >= budget) return null;
    const next = call.services.workers.pickWorker(spec.model, spec.choices[0]?.promptTokenIds ?? [], undefined, tried);
    if (next === null) return null;
    let client;
    try {
      client = next.acquireClient();
    } catch {
      return null;
    }
    tried.add(next.id);
    release();
    release = next.trackRequest();
    call.services.logger.warn(`engine of worker ${worker.url} was lost before the first token; request rerouted to ${next.url}`);
    return client;
  };
  const metrics = requestMetrics(
    call.services.metrics,
    { backend_type: worker.runtime, model: spec.model, endpoint: call.endpoint },
    spec.stream,
    {
      // The request's `n` (completions with several prompts run n choices per prompt).
      n: 'n' in spec && typeof spec.n === 'number' ? spec.n : spec.choices.length,
      maxTokens: spec.choices[0]?.sampling.maxTokens ?? 0,
      maxModelLen: spec.client.maxModelLen,
    },
  );
  const t = currentTrace();
  const traced = t ? new GenerationTrace(t, traceFacts(spec)) : null;
  const observer = traced ? bothObservers(metrics, traced) : metrics;
  const done = traced
    ? () => {
        untrack();
        traced.responseDone();
      }
    : untrack;
  try {
    const generation = startChoices(
      {
        client: spec.client,
        tokenizer: spec.tokenizer,
        choices: spec.choices,
        rules: spec.rules,
        // A client disconnect aborts every choice.
        signal: call.signal,
        timeoutMs: call.services.config.requestTimeoutSecs * 1000,
        stream: spec.stream,
        observer,
        output: spec.output,
        tokenIds: spec.tokenIds,
        priority: spec.priority,
        reroute,
      },
      sink,
    );
    return { abort: () => generation.abort(), done };
  } catch (err) {
    untrack();
    // The route ends the request span with the error response's status.
    traced?.notStarted(err);
    metrics.failedToStart(err);
    throw submitError(err);
  }
}

/** vLLM's request attributes; its gen_ai.request.id is the response id (chatcmpl-…). */
function traceFacts(spec: GenerationSpec): ConstructorParameters<typeof GenerationTrace>[1] {
  const s = spec.choices[0]?.sampling;
  return {
    model: spec.model,
    requestId: 'id' in spec && typeof spec.id === 'string' ? spec.id : '',
    n: 'n' in spec && typeof spec.n === 'number' ? spec.n : spec.choices.length,
    maxTokens: s?.maxTokens ?? 0,
    temperature: s?.temperature ?? 1,
    topP: s?.topP ?? 1,
    priority: spec.priority ?? 0,
    worker: spec.worker.url,
  };
}

/** Metrics and the trace both see the generation (only while tracing is on). */
function bothObservers(a: GenerationObserver, b: GenerationObserver): GenerationObserver {
  return {
    firstText() {
      a.firstText();
      b.firstText();
    },
    choiceEnded(p, c, i, r) {
      a.choiceEnded(p, c, i, r);
      b.choiceEnded(p, c, i, r);
    },
    choiceStarted(i, rank) {
      const x = a.choiceStarted?.(i, rank);
      const y = b.choiceStarted?.(i, rank);
      if (x === undefined || y === undefined) return x ?? y;
      return {
        step(n, q) {
          x.step(n, q);
          y.step(n, q);
        },
      };
    },
    done(err) {
      a.done(err);
      b.done(err);
    },
  };
}
