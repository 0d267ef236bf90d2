/**
 * Router metrics of one inference request (cli-and-api §5.11): counted when it starts, TTFT at the
 * first text, tokens, durations and TPOT when every choice has ended, an error when it fails.
 */
import { EngineError } from '../engine/client-types.js';
import type { Counter, Histogram } from 'prom-client';
import type { GenerationObserver } from './generate.js';
import { PipelineError } from './errors.js';

/** What the request pipeline records per request (router_type/connection_mode are fixed here). */
export interface RouterMetrics {
  readonly requestsTotal: Counter<'router_type' | 'backend_type' | 'connection_mode' | 'model' | 'endpoint' | 'streaming'>;
  readonly requestDuration: Histogram<'router_type' | 'backend_type' | 'connection_mode' | 'model' | 'endpoint'>;
  readonly errorsTotal: Counter<'router_type' | 'backend_type' | 'connection_mode' | 'model' | 'endpoint' | 'error_type'>;
  readonly ttft: Histogram<'router_type' | 'backend_type' | 'model' | 'endpoint'>;
  readonly tpot: Histogram<'router_type' | 'backend_type' | 'model' | 'endpoint'>;
  readonly generationDuration: Histogram<'router_type' | 'backend_type' | 'model' | 'endpoint'>;
  readonly tokensTotal: Counter<'router_type' | 'backend_type' | 'model' | 'endpoint' | 'token_type'>;
  /** Label values shared by every router series. */
  readonly fixedLabels: { router_type: string; connection_mode: string };
}

export interface RequestMetrics extends GenerationObserver {
  failedToStart(err: unknown): void;
}

export function requestMetrics(
  metrics: RouterMetrics,
  labels: { backend_type: string; model: string; endpoint: string },
  streaming: boolean,
): RequestMetrics {
  const base = { ...metrics.fixedLabels, ...labels };
  const timed = { router_type: base.router_type, ...labels };
  metrics.requestsTotal.inc({ ...base, streaming: String(streaming) });
  const start = performance.now();
  let firstAt = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let settled = false;
  const fail = (err: unknown) => metrics.errorsTotal.inc({ ...base, error_type: errorType(err) });
  return {
    firstText() {
      firstAt = performance.now();
      metrics.ttft.observe(timed, (firstAt - start) / 1000);
    },
    choiceEnded(prompt, completion) {
      promptTokens += prompt;
      completionTokens += completion;
    },
    done(error) {
      if (settled) return;
      settled = true;
      const now = performance.now();
      metrics.requestDuration.observe(base, (now - start) / 1000);
      if (error !== null) fail(error);
      metrics.tokensTotal.inc({ ...timed, token_type: 'input' }, promptTokens);
      metrics.tokensTotal.inc({ ...timed, token_type: 'output' }, completionTokens);
      if (firstAt > 0) {
        metrics.generationDuration.observe(timed, (now - firstAt) / 1000);
        if (completionTokens > 1) metrics.tpot.observe(timed, (now - firstAt) / 1000 / (completionTokens - 1));
      }
    },
    failedToStart(err) {
      settled = true;
      fail(err);
    },
  };
}

function errorType(err: unknown): string {
  if (err instanceof PipelineError) return err.code;
  if (err instanceof EngineError) return err.kind;
  return 'internal';
}
