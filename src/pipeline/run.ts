/**
 * Starting a prepared generation for one HTTP request: submit it, tie it to the client's
 * connection (a disconnect aborts every choice), the worker's in-flight count and the router
 * metrics. Protocol-free: the front-end decides how to answer with the events.
 */
import type { AsyncQueue } from './async-queue.js';
import { submitError } from './errors.js';
import type { GenEvent } from './events.js';
import { generate } from './generate.js';
import type { GenerationSpec } from './generation-spec.js';
import { requestMetrics } from './metrics.js';
import type { PipelineServices } from './services.js';

/** Metrics label of the endpoint that asked. */
export type EndpointLabel = 'chat_completions' | 'completions' | 'messages' | 'responses' | 'generate';

export interface Run {
  events: AsyncQueue<GenEvent>;
  /** Stops the generation (the response was cancelled). */
  abort(): void;
  /** The response is complete or abandoned; idempotent. */
  done(): void;
}

/** Throws a PipelineError when the engine refuses the submission (nothing was sent back yet). */
export function startGeneration(
  spec: GenerationSpec,
  call: { signal: AbortSignal; services: PipelineServices; endpoint: EndpointLabel },
): Run {
  const { worker } = spec;
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const release = worker.trackRequest();
  const done = () => {
    release();
    call.signal.removeEventListener('abort', onClientGone);
  };
  const observer = requestMetrics(
    call.services.metrics,
    { backend_type: worker.runtime, model: spec.model, endpoint: call.endpoint },
    spec.stream,
  );
  try {
    const events = generate({
      client: spec.client,
      tokenizer: spec.tokenizer,
      choices: spec.choices,
      rules: spec.rules,
      signal: abort.signal,
      timeoutMs: call.services.config.requestTimeoutSecs * 1000,
      stream: spec.stream,
      observer,
      output: spec.output,
      tokenIds: spec.tokenIds,
    });
    return { events, abort: () => abort.abort(), done };
  } catch (err) {
    done();
    observer.failedToStart(err);
    throw submitError(err);
  }
}
