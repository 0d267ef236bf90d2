/**
 * vLLM's Prometheus names beside SMG's, on by default. Why not behind a flag: a headless vLLM
 * engine serves no /metrics (its PrometheusStatLogger runs in the API-server process, which
 * `--headless` does not start), so once this gateway replaces `vllm serve` these series exist
 * nowhere else, and the dashboards and alerts vLLM users already run would go blank. They cost a
 * fixed handful of series per model × engine, and the `vllm:` prefix cannot collide with `smg_`.
 *
 * Names, help texts, label names and bucket boundaries are vLLM's (vllm/v1/metrics/loggers.py).
 * The per-request series use fast-metrics.ts (an inter-token observation per generated token).
 * Counters carry `_total` in the name: Python's prometheus_client appends it on exposition, so
 * `vllm:prompt_tokens` is scraped as `vllm:prompt_tokens_total`, which is what dashboards query.
 *
 * Two sources, as in vLLM:
 * - per request (pipeline/vllm-metrics.ts): TTFT, inter-token latency, e2e latency, queue time
 *   (from the engine's scheduler events), token counts, finished requests;
 * - per engine step (the `scheduler_stats` each vLLM output batch carries, TokenSpeed's load
 *   trailer): running / waiting requests, KV-cache usage, prefix-cache queries / hits. These are
 *   read from the workers at scrape time; they add a `worker` label so two workers' rank 0 do not
 *   collide (vLLM has one engine set per process and needs none).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { FastCounter as RequestCounter, FastHistogram as Histogram } from './fast-metrics.js';
import type { VllmMetrics, VllmTokenHistograms } from '../pipeline/vllm-metrics.js';
import type { Worker } from '../workers/worker.js';

const LABELS = ['model_name', 'engine'] as const;
const ENGINE_STATE_LABELS = ['model_name', 'engine', 'worker'] as const;

const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0];
const REQUEST_LATENCY_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];
const N_BUCKETS = [1, 2, 5, 10, 20];

/** vLLM's `build_1_2_5_buckets(max_model_len)`: 1, 2, 5, 10, 20, 50, … up to the maximum. */
export function buckets125(max: number): number[] {
  const out: number[] = [];
  for (let exp = 1; ; exp *= 10) {
    for (const m of [1, 2, 5]) {
      if (m * exp > max) return out;
      out.push(m * exp);
    }
  }
}

export function defineVllmMetrics(registers: Registry[], workers: () => readonly Worker[]): VllmMetrics {
  defineEngineState(registers, workers);
  let tokenHistograms: VllmTokenHistograms | null = null;
  return {
    ttft: new Histogram({ name: 'vllm:time_to_first_token_seconds', help: 'Histogram of time to first token in seconds.', labelNames: LABELS, buckets: TTFT_BUCKETS, registers }),
    itl: new Histogram({ name: 'vllm:inter_token_latency_seconds', help: 'Histogram of inter-token latency in seconds.', labelNames: LABELS, buckets: ITL_BUCKETS, registers }),
    e2e: new Histogram({ name: 'vllm:e2e_request_latency_seconds', help: 'Histogram of e2e request latency in seconds.', labelNames: LABELS, buckets: REQUEST_LATENCY_BUCKETS, registers }),
    queueTime: new Histogram({
      name: 'vllm:request_queue_time_seconds', help: 'Histogram of time spent in WAITING phase for request.', labelNames: LABELS, buckets: REQUEST_LATENCY_BUCKETS, registers,
    }),
    promptTokens: new RequestCounter({ name: 'vllm:prompt_tokens_total', help: 'Number of prefill tokens processed.', labelNames: LABELS, registers }),
    generationTokens: new RequestCounter({ name: 'vllm:generation_tokens_total', help: 'Number of generation tokens processed.', labelNames: LABELS, registers }),
    success: new RequestCounter({
      name: 'vllm:request_success_total', help: 'Count of successfully processed requests.', labelNames: [...LABELS, 'finished_reason'], registers,
    }),
    paramsN: new Histogram({ name: 'vllm:request_params_n', help: 'Histogram of the n request parameter.', labelNames: LABELS, buckets: N_BUCKETS, registers }),
    // The boundaries depend on max_model_len, which only the first engine handshake tells: the
    // first request's engine fixes them (vLLM has one model per process; here a larger model's
    // longer requests land in +Inf).
    tokenHistograms(maxModelLen: number): VllmTokenHistograms {
      if (tokenHistograms) return tokenHistograms;
      const buckets = buckets125(maxModelLen);
      tokenHistograms = {
        requestPromptTokens: new Histogram({ name: 'vllm:request_prompt_tokens', help: 'Number of prefill tokens processed.', labelNames: LABELS, buckets, registers }),
        requestGenerationTokens: new Histogram({
          name: 'vllm:request_generation_tokens', help: 'Number of generation tokens processed.', labelNames: LABELS, buckets, registers,
        }),
        paramsMaxTokens: new Histogram({
          name: 'vllm:request_params_max_tokens', help: 'Histogram of the max_tokens request parameter.', labelNames: LABELS, buckets, registers,
        }),
      };
      return tokenHistograms;
    },
  };
}

/** Scheduler state as the engines last reported it, read from the workers at scrape time. */
function defineEngineState(registers: Registry[], workers: () => readonly Worker[]): void {
  type Rank = ReturnType<Worker['ranks']>[number];
  const perRank = (set: (labels: Record<(typeof ENGINE_STATE_LABELS)[number], string>, r: Rank) => void, vllmOnly = false) => {
    for (const w of workers()) {
      if (vllmOnly && w.runtime !== 'vllm') continue;
      for (const r of w.ranks()) set({ model_name: w.modelId, engine: String(r.rank), worker: w.url }, r);
    }
  };
  new Gauge({
    name: 'vllm:num_requests_running', help: 'Number of requests in model execution batches.', labelNames: ENGINE_STATE_LABELS, registers,
    collect() {
      this.reset();
      perRank((l, r) => r.load && this.set(l, r.load.numRunning));
    },
  });
  new Gauge({
    name: 'vllm:num_requests_waiting', help: 'Number of requests waiting to be processed.', labelNames: ENGINE_STATE_LABELS, registers,
    collect() {
      this.reset();
      perRank((l, r) => r.load && this.set(l, r.load.numWaiting));
    },
  });
  new Gauge({
    name: 'vllm:kv_cache_usage_perc', help: 'KV-cache usage. 1 means 100 percent usage.', labelNames: ENGINE_STATE_LABELS, registers,
    collect() {
      this.reset();
      perRank((l, r) => r.load && this.set(l, r.load.kvCacheUsage));
    },
  });
  // Sums of the engines' per-step counters since the worker's engine client connected; a
  // reconnect starts them again at 0, which Prometheus reads as a counter reset.
  new Counter({
    name: 'vllm:prefix_cache_queries_total', help: 'Prefix cache queries, in terms of number of queried tokens.', labelNames: ENGINE_STATE_LABELS, registers,
    collect() {
      this.reset();
      // Only vLLM reports prefix-cache traffic on the wire (TokenSpeed's load trailer has none).
      perRank((l, r) => this.inc(l, r.prefixQueries ?? 0), true);
    },
  });
  new Counter({
    name: 'vllm:prefix_cache_hits_total', help: 'Prefix cache hits, in terms of number of cached tokens.', labelNames: ENGINE_STATE_LABELS, registers,
    collect() {
      this.reset();
      perRank((l, r) => this.inc(l, r.prefixHits ?? 0), true);
    },
  });
}
