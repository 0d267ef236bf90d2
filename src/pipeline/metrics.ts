/**
 * Router metrics of one inference request (cli-and-api §5.11): counted when it starts, TTFT at the
 * first text, tokens, durations and TPOT when every choice has ended, an error when it fails.
 */
import { EngineError } from '../engine/client-types.js';
import type { GenerationObserver } from './generate.js';
import { PipelineError } from './errors.js';
import { type Incrementer, type LabelledCounter, type LabelledHistogram, type Observer, type VllmMetrics, VllmRequestRecorder } from './vllm-metrics.js';

/** What the request pipeline records per request (router_type/connection_mode are fixed here). */
export interface RouterMetrics {
  /** Children resolved per label set (gateway/fast-metrics.ts; label names as in gateway/metrics.ts). */
  readonly requestsTotal: LabelledCounter;
  readonly requestDuration: LabelledHistogram;
  readonly errorsTotal: LabelledCounter;
  readonly ttft: LabelledHistogram;
  readonly tpot: LabelledHistogram;
  readonly generationDuration: LabelledHistogram;
  readonly tokensTotal: LabelledCounter;
  /** Label values shared by every router series. */
  readonly fixedLabels: { router_type: string; connection_mode: string };
  /** vLLM's metric names beside these (pipeline/vllm-metrics.ts); absent = not recorded. */
  readonly vllm?: VllmMetrics;
}

/** What vLLM's histograms need to know of the request's sampling. */
export interface VllmRequestFacts {
  n: number;
  maxTokens: number;
  maxModelLen: number;
}

export interface RequestMetrics extends GenerationObserver {
  failedToStart(err: unknown): void;
}

/** The label children of one (runtime, model, endpoint), resolved once: no label hashing per request. */
interface Series {
  requests: Record<'true' | 'false', Incrementer>;
  duration: Observer;
  ttft: Observer;
  generation: Observer;
  tpot: Observer;
  inputTokens: Incrementer;
  outputTokens: Incrementer;
  errors: Map<string, Incrementer>;
  base: Record<string, string>;
}

/** Bounded: label values come from served models and endpoints, but stay safe against churn. */
const MAX_SERIES = 1024;
const seriesCache = new WeakMap<RouterMetrics, Map<string, Series>>();

function seriesFor(metrics: RouterMetrics, labels: { backend_type: string; model: string; endpoint: string }): Series {
  let cache = seriesCache.get(metrics);
  if (!cache) seriesCache.set(metrics, (cache = new Map()));
  const key = `${labels.backend_type}\u0000${labels.model}\u0000${labels.endpoint}`;
  let s = cache.get(key);
  if (s) return s;
  const base = { ...metrics.fixedLabels, ...labels };
  const timed = { router_type: base.router_type, ...labels };
  s = {
    requests: {
      true: metrics.requestsTotal.labels({ ...base, streaming: 'true' }),
      false: metrics.requestsTotal.labels({ ...base, streaming: 'false' }),
    },
    duration: metrics.requestDuration.labels(base),
    ttft: metrics.ttft.labels(timed),
    generation: metrics.generationDuration.labels(timed),
    tpot: metrics.tpot.labels(timed),
    inputTokens: metrics.tokensTotal.labels({ ...timed, token_type: 'input' }),
    outputTokens: metrics.tokensTotal.labels({ ...timed, token_type: 'output' }),
    errors: new Map(),
    base,
  };
  if (cache.size >= MAX_SERIES) cache.clear();
  cache.set(key, s);
  return s;
}

export function requestMetrics(
  metrics: RouterMetrics,
  labels: { backend_type: string; model: string; endpoint: string },
  streaming: boolean,
  facts?: VllmRequestFacts,
): RequestMetrics {
  const s = seriesFor(metrics, labels);
  s.requests[streaming ? 'true' : 'false'].inc();
  const start = performance.now();
  const vllm = metrics.vllm && facts ? new VllmRequestRecorder(metrics.vllm, labels.model, start, facts) : null;
  let firstAt = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let settled = false;
  const fail = (err: unknown) => {
    const type = errorType(err);
    let child = s.errors.get(type);
    if (!child) s.errors.set(type, (child = metrics.errorsTotal.labels({ ...s.base, error_type: type })));
    child.inc();
  };
  return {
    firstText() {
      firstAt = performance.now();
      s.ttft.observe((firstAt - start) / 1000);
    },
    choiceEnded(prompt, completion, index, reason) {
      promptTokens += prompt;
      completionTokens += completion;
      vllm?.choiceEnded(index, prompt, completion, reason);
    },
    choiceStarted: vllm ? (index, rank) => vllm.choiceStarted(index, rank) : undefined,
    done(error) {
      if (settled) return;
      settled = true;
      vllm?.failed(error === null ? 'abort' : 'error');
      const now = performance.now();
      s.duration.observe((now - start) / 1000);
      if (error !== null) fail(error);
      s.inputTokens.inc(promptTokens);
      s.outputTokens.inc(completionTokens);
      if (firstAt > 0) {
        s.generation.observe((now - firstAt) / 1000);
        if (completionTokens > 1) s.tpot.observe((now - firstAt) / 1000 / (completionTokens - 1));
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
