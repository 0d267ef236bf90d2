/**
 * vLLM's request metrics (vllm/v1/metrics/loggers.py, PrometheusStatLogger) recorded from the same
 * measurements as SMG's router metrics, so the Grafana dashboards vLLM users run keep working when
 * a headless engine sits behind this gateway (a headless vLLM serves no /metrics of its own: its
 * stat loggers live in the API-server process that headless mode does not start).
 *
 * Per engine request, as vLLM counts them: each choice of an n > 1 request is a request of its own
 * (vLLM fans n out into child requests), labelled with vLLM's `model_name` and `engine` (the
 * data-parallel rank that served it).
 */
import type { ChoiceMeter } from './generate.js';

/** A metric's series for one label set, resolved once (gateway/fast-metrics.ts). */
export interface Observer {
  observe(value: number): void;
}
export interface Incrementer {
  inc(value?: number): void;
}
export interface LabelledHistogram {
  labels(labels: Record<string, string>): Observer;
}
export interface LabelledCounter {
  labels(labels: Record<string, string>): Incrementer;
}

/** The metric objects (defined by the gateway's registry, gateway/vllm-metrics.ts). */
export interface VllmMetrics {
  readonly ttft: LabelledHistogram;
  readonly itl: LabelledHistogram;
  readonly e2e: LabelledHistogram;
  readonly queueTime: LabelledHistogram;
  readonly promptTokens: LabelledCounter;
  readonly generationTokens: LabelledCounter;
  /** Labels model_name, engine, finished_reason. */
  readonly success: LabelledCounter;
  readonly paramsN: LabelledHistogram;
  /** Token-count histograms; vLLM's 1-2-5 buckets need max_model_len, so they are made on first use. */
  tokenHistograms(maxModelLen: number): VllmTokenHistograms;
}

export interface VllmTokenHistograms {
  readonly requestPromptTokens: LabelledHistogram;
  readonly requestGenerationTokens: LabelledHistogram;
  readonly paramsMaxTokens: LabelledHistogram;
}

/** The children of one (model, engine), resolved once. */
interface EngineSeries {
  ttft: Observer;
  itl: Observer;
  e2e: Observer;
  queueTime: Observer;
  promptTokens: Incrementer;
  generationTokens: Incrementer;
  paramsN: Observer;
  success: Map<string, Incrementer>;
  tokens: { prompt: Observer; generation: Observer; maxTokens: Observer } | null;
  labels: { model_name: string; engine: string };
}

const MAX_SERIES = 1024;
const seriesCache = new WeakMap<VllmMetrics, Map<string, EngineSeries>>();

function seriesFor(m: VllmMetrics, model: string, rank: number): EngineSeries {
  let cache = seriesCache.get(m);
  if (!cache) seriesCache.set(m, (cache = new Map()));
  const key = `${model}\u0000${rank}`;
  let s = cache.get(key);
  if (s) return s;
  const labels = { model_name: model, engine: String(rank) };
  s = {
    ttft: m.ttft.labels(labels),
    itl: m.itl.labels(labels),
    e2e: m.e2e.labels(labels),
    queueTime: m.queueTime.labels(labels),
    promptTokens: m.promptTokens.labels(labels),
    generationTokens: m.generationTokens.labels(labels),
    paramsN: m.paramsN.labels(labels),
    success: new Map(),
    tokens: null,
    labels,
  };
  if (cache.size >= MAX_SERIES) cache.clear();
  cache.set(key, s);
  return s;
}

/**
 * One choice's latency series, fed per engine output by the choice itself (GenerationObserver
 * choiceStarted): queue time, TTFT at its first token, ITL between later ones.
 */
class ChoiceState implements ChoiceMeter {
  /** performance.now() of the last token, 0 before the first. */
  lastTokenAt = 0;
  ended = false;

  constructor(
    readonly series: EngineSeries,
    private readonly startedAt: number,
  ) {}

  /** An engine output with `newTokens` tokens (queue time when the engine sent it). */
  step(newTokens: number, queuedSecs: number | undefined): void {
    if (queuedSecs !== undefined) this.series.queueTime.observe(queuedSecs);
    if (newTokens === 0) return;
    const now = performance.now();
    if (this.lastTokenAt === 0) this.series.ttft.observe((now - this.startedAt) / 1000);
    else this.series.itl.observe((now - this.lastTokenAt) / 1000);
    this.lastTokenAt = now;
  }
}

/** What one request feeds in; every method is cheap (no label hashing after the first choice). */
export class VllmRequestRecorder {
  /** By choice index (a small dense index); `started` counts the indexes set. */
  private readonly choices: (ChoiceState | undefined)[] = [];
  private started = 0;

  constructor(
    private readonly m: VllmMetrics,
    private readonly model: string,
    private readonly startedAt: number,
    private readonly sampling: { n: number; maxTokens: number; maxModelLen: number },
  ) {}

  /** Choice `index` runs on rank `rank`; the returned meter takes its engine outputs. */
  choiceStarted(index: number, rank: number): ChoiceMeter {
    const series = seriesFor(this.m, this.model, rank);
    if (this.choices[index] === undefined) this.started++;
    const c = new ChoiceState(series, this.startedAt);
    this.choices[index] = c;
    // vLLM observes n once per request, on the parent.
    if (this.started === 1) series.paramsN.observe(this.sampling.n);
    return c;
  }

  choiceEnded(index: number, promptTokens: number, completionTokens: number, reason: string): void {
    const c = this.choices[index];
    if (!c || c.ended) return;
    c.ended = true;
    this.finish(c, reason, promptTokens, completionTokens);
  }

  /** The request failed: every choice still running ends as vLLM's `error` (or `abort` when the client left). */
  failed(reason: 'error' | 'abort'): void {
    for (const c of this.choices) {
      if (c === undefined || c.ended) continue;
      c.ended = true;
      this.finish(c, reason, 0, 0);
    }
  }

  private finish(c: ChoiceState, reason: string, promptTokens: number, completionTokens: number): void {
    const s = c.series;
    s.e2e.observe((performance.now() - this.startedAt) / 1000);
    if (promptTokens > 0) s.promptTokens.inc(promptTokens);
    if (completionTokens > 0) s.generationTokens.inc(completionTokens);
    // vLLM's FinishReason strings: stop, length, abort, error (tool calls end on a stop).
    const finished = reason === 'tool_calls' ? 'stop' : reason;
    let child = s.success.get(finished);
    if (!child) s.success.set(finished, (child = this.m.success.labels({ ...s.labels, finished_reason: finished })));
    child.inc();
    if (this.sampling.maxModelLen > 0) {
      if (s.tokens === null) {
        const h = this.m.tokenHistograms(this.sampling.maxModelLen);
        s.tokens = { prompt: h.requestPromptTokens.labels(s.labels), generation: h.requestGenerationTokens.labels(s.labels), maxTokens: h.paramsMaxTokens.labels(s.labels) };
      }
      s.tokens.prompt.observe(promptTokens);
      s.tokens.generation.observe(completionTokens);
      s.tokens.maxTokens.observe(this.sampling.maxTokens);
    }
  }
}
