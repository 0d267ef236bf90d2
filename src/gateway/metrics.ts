/**
 * One prom-client Registry for the process (cli-and-api §5.11 names). Worker and engine gauges
 * are computed at scrape time from the worker manager, so they can never drift from it.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WorkerMetricsSink } from '../workers/manager.js';
import type { PolicyName } from '../workers/types.js';
import type { Worker } from '../workers/worker.js';
import type { RouterMetrics } from '../pipeline/metrics.js';
import { defineVllmMetrics } from './vllm-metrics.js';
import { type CounterChild, FastCounter, FastHistogram } from './fast-metrics.js';
import { BREAKER_STATE_CODE, type BreakerState } from '../workers/circuit-breaker.js';
import type { RetryMetricsSink } from '../forward/forwarder.js';

/** SMG's duration buckets, applied to every *_duration_seconds metric. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60, 90, 120, 180, 240];

const ZMQ = 'zmq';
const WORKER_TYPE = 'regular';
/** Removed workers keep a -1 health series for a while; bounded so churn cannot grow memory. */
const MAX_REMOVED = 256;

/**
 * prom-client's default collectors name three gauges `…_total`, which the exposition format
 * reserves for counters (`promtool check metrics` refuses them). Each duplicates a `_total`-less
 * gauge the same collectors export (`nodejs_active_handles`, `…_requests`, `…_resources`, by
 * type), so they are dropped rather than renamed.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const modeOf = (w: Worker): string => (w.isHttp ? 'http' : ZMQ);

export class GatewayMetrics implements WorkerMetricsSink, RetryMetricsSink {
  readonly registry = new Registry();
  // The per-request series: fast-metrics.ts in prom-client's exposition form (the same /metrics
  // text). prom-client's own children hash and validate their labels on every inc/observe: a dozen
  // of those per short request showed in its profile.
  readonly httpRequests: FastCounter;
  readonly httpDuration: FastHistogram;
  readonly httpResponses: FastCounter;
  /** Requests in flight; the gauge reads it at scrape time. */
  readonly httpActive = { value: 0, inc(): void { this.value++; }, dec(): void { this.value--; } };
  readonly router: RouterMetrics;
  private readonly selection: FastCounter;
  private readonly selectionChildren = new Map<string, CounterChild>();
  private readonly healthChecks: Counter<'worker_type' | 'connection_mode' | 'runtime' | 'result'>;
  readonly workerErrors: Counter<'worker_type' | 'connection_mode' | 'runtime' | 'error_type'>;
  private readonly removedWorkers = new Map<string, string>();
  private readonly cbTransitions: Counter<'worker' | 'from' | 'to'>;
  private readonly cbOutcomes: Counter<'worker' | 'outcome'>;
  private readonly retries: Counter<'worker_type' | 'endpoint'>;
  private readonly retriesExhaustedTotal: Counter<'worker_type' | 'endpoint'>;
  private readonly backoff: Histogram<'attempt'>;

  constructor(workers: () => readonly Worker[], opts: { defaultMetrics?: boolean; vllmMetrics?: boolean } = {}) {
    const registers = [this.registry];
    const promClient = true;
    this.httpRequests = new FastCounter({ name: 'smg_http_requests_total', help: 'HTTP requests received', labelNames: ['method', 'path'], registers, promClient });
    this.httpDuration = new FastHistogram({ name: 'smg_http_request_duration_seconds', help: 'HTTP request duration until the response head', labelNames: ['method', 'path'], buckets: DURATION_BUCKETS, registers, promClient });
    this.httpResponses = new FastCounter({ name: 'smg_http_responses_total', help: 'HTTP responses by status', labelNames: ['path', 'status_code', 'error_code'], registers, promClient });
    const active = this.httpActive;
    new Gauge({
      name: 'smg_http_connections_active', help: 'HTTP requests in flight (streams until their last byte)', registers,
      collect() {
        this.set(active.value);
      },
    });

    const routerLabels = ['router_type', 'backend_type', 'connection_mode', 'model', 'endpoint'] as const;
    const genLabels = ['router_type', 'backend_type', 'model', 'endpoint'] as const;
    this.router = {
      requestsTotal: new FastCounter({ name: 'smg_router_requests_total', help: 'Inference requests routed', labelNames: [...routerLabels, 'streaming'], registers, promClient }),
      requestDuration: new FastHistogram({ name: 'smg_router_request_duration_seconds', help: 'Inference request duration', labelNames: [...routerLabels], buckets: DURATION_BUCKETS, registers, promClient }),
      errorsTotal: new FastCounter({ name: 'smg_router_request_errors_total', help: 'Inference request errors', labelNames: [...routerLabels, 'error_type'], registers, promClient }),
      ttft: new FastHistogram({ name: 'smg_router_ttft_seconds', help: 'Time to first token', labelNames: [...genLabels], buckets: DURATION_BUCKETS, registers, promClient }),
      tpot: new FastHistogram({ name: 'smg_router_tpot_seconds', help: 'Time per output token', labelNames: [...genLabels], buckets: DURATION_BUCKETS, registers, promClient }),
      generationDuration: new FastHistogram({ name: 'smg_router_generation_duration_seconds', help: 'Generation duration', labelNames: [...genLabels], buckets: DURATION_BUCKETS, registers, promClient }),
      tokensTotal: new FastCounter({ name: 'smg_router_tokens_total', help: 'Tokens processed', labelNames: [...genLabels, 'token_type'], registers, promClient }),
      // SMG labels ZMQ traffic router_type="grpc", connection_mode="grpc" (it rides the gRPC
      // pipeline); here ZMQ is the only transport, so the label says what it is.
      fixedLabels: { router_type: 'grpc', connection_mode: ZMQ },
      vllm: opts.vllmMetrics === false ? undefined : defineVllmMetrics(registers, workers),
    };

    this.selection = new FastCounter({ name: 'smg_worker_selection_total', help: 'Worker selections by policy', labelNames: ['worker_type', 'connection_mode', 'model', 'policy', 'runtime'], registers, promClient });
    this.healthChecks = new Counter({ name: 'smg_worker_health_checks_total', help: 'Worker health probes', labelNames: ['worker_type', 'connection_mode', 'runtime', 'result'], registers });
    this.workerErrors = new Counter({ name: 'smg_worker_errors_total', help: 'Worker-level errors', labelNames: ['worker_type', 'connection_mode', 'runtime', 'error_type'], registers });
    // SMG's resilience metrics (smg-project/smg model_gateway/src/observability/metrics.rs, Layer 3).
    this.cbTransitions = new Counter({ name: 'smg_worker_cb_transitions_total', help: 'Circuit breaker state transitions by worker, from, to', labelNames: ['worker', 'from', 'to'], registers });
    this.cbOutcomes = new Counter({ name: 'smg_worker_cb_outcomes_total', help: 'Circuit breaker outcomes by worker and outcome (success/failure)', labelNames: ['worker', 'outcome'], registers });
    this.retries = new Counter({ name: 'smg_worker_retries_total', help: 'Total retry attempts by worker_type and endpoint', labelNames: ['worker_type', 'endpoint'], registers });
    this.retriesExhaustedTotal = new Counter({ name: 'smg_worker_retries_exhausted_total', help: 'Requests that exhausted all retries by worker_type and endpoint', labelNames: ['worker_type', 'endpoint'], registers });
    this.backoff = new Histogram({ name: 'smg_worker_retry_backoff_seconds', help: 'Retry backoff duration by attempt number', labelNames: ['attempt'], buckets: DURATION_BUCKETS, registers });
    const breakerGauge = (name: string, help: string, value: (b: NonNullable<Worker['breaker']>) => number) =>
      new Gauge({
        name, help, labelNames: ['worker'], registers,
        collect() {
          this.reset();
          for (const w of workers()) if (w.breaker) this.set({ worker: w.url }, value(w.breaker));
        },
      });
    breakerGauge('smg_worker_cb_state', 'Circuit breaker state per worker (0=closed, 1=open, 2=half_open)', (b) => BREAKER_STATE_CODE[b.state]);
    breakerGauge('smg_worker_cb_consecutive_failures', 'Current consecutive failure count per worker', (b) => b.consecutiveFailures);
    breakerGauge('smg_worker_cb_consecutive_successes', 'Current consecutive success count per worker', (b) => b.consecutiveSuccesses);
    this.defineWorkerGauges(workers, registers);
    if (opts.defaultMetrics) {
      collectDefaultMetrics({ register: this.registry, prefix: 'smg_' });
      for (const name of GAUGES_NAMED_LIKE_COUNTERS) this.registry.removeSingleMetric(`smg_${name}`);
    }
  }

  breakerTransition(worker: Worker, from: BreakerState, to: BreakerState): void {
    this.cbTransitions.inc({ worker: worker.url, from, to });
  }

  breakerOutcome(worker: Worker, outcome: 'success' | 'failure'): void {
    this.cbOutcomes.inc({ worker: worker.url, outcome });
  }

  retry(endpoint: string): void {
    this.retries.inc({ worker_type: WORKER_TYPE, endpoint });
  }

  retriesExhausted(endpoint: string): void {
    this.retriesExhaustedTotal.inc({ worker_type: WORKER_TYPE, endpoint });
  }

  retryBackoff(attempt: number, seconds: number): void {
    this.backoff.observe({ attempt: String(attempt) }, seconds);
  }

  workerError(worker: Worker, errorType: string): void {
    this.workerErrors.inc({ worker_type: WORKER_TYPE, connection_mode: modeOf(worker), runtime: worker.runtime, error_type: errorType });
  }

  healthCheck(worker: Worker, ok: boolean): void {
    this.healthChecks.inc({ worker_type: WORKER_TYPE, connection_mode: modeOf(worker), runtime: worker.runtime, result: ok ? 'success' : 'failure' });
  }

  selected(worker: Worker, model: string, policy: PolicyName): void {
    // Once per request: the child is kept per (model, policy, runtime), no label object built.
    const key = `${model}\u0000${policy}\u0000${worker.runtime}`;
    let child = this.selectionChildren.get(key);
    if (!child) {
      if (this.selectionChildren.size >= 1024) this.selectionChildren.clear();
      this.selectionChildren.set(key, (child = this.selection.labels({ worker_type: WORKER_TYPE, connection_mode: ZMQ, model, policy, runtime: worker.runtime })));
    }
    child.inc();
  }

  removed(worker: Worker): void {
    this.removedWorkers.delete(worker.url);
    this.removedWorkers.set(worker.url, worker.runtime);
    if (this.removedWorkers.size > MAX_REMOVED) this.removedWorkers.delete(this.removedWorkers.keys().next().value as string);
  }

  async render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private defineWorkerGauges(workers: () => readonly Worker[], registers: Registry[]): void {
    const removed = this.removedWorkers;
    new Gauge({
      name: 'smg_worker_pool_size', help: 'Registered workers', labelNames: ['worker_type', 'connection_mode', 'model', 'runtime'], registers,
      collect() {
        this.reset();
        for (const w of workers()) this.inc({ worker_type: WORKER_TYPE, connection_mode: modeOf(w), model: w.modelId, runtime: w.runtime });
      },
    });
    new Gauge({
      name: 'smg_worker_connections_active', help: 'Workers with a live engine connection', labelNames: ['worker_type', 'connection_mode', 'runtime'], registers,
      collect() {
        this.reset();
        for (const w of workers()) if (w.hasLiveClient) this.inc({ worker_type: WORKER_TYPE, connection_mode: modeOf(w), runtime: w.runtime });
      },
    });
    new Gauge({
      name: 'smg_worker_health', help: 'Worker health: 1 ready, 0 not ready, -1 removed', labelNames: ['worker', 'connection_mode', 'runtime'], registers,
      collect() {
        this.reset();
        for (const [url, runtime] of removed) this.set({ worker: url, connection_mode: ZMQ, runtime }, -1);
        for (const w of workers()) this.set({ worker: w.url, connection_mode: modeOf(w), runtime: w.runtime }, w.isReady ? 1 : 0);
      },
    });
    new Gauge({
      name: 'smg_worker_requests_active', help: 'Gateway requests in flight per worker', labelNames: ['worker', 'connection_mode', 'runtime'], registers,
      collect() {
        this.reset();
        for (const w of workers()) this.set({ worker: w.url, connection_mode: modeOf(w), runtime: w.runtime }, w.load);
      },
    });
    const rankGauge = (name: string, help: string, value: (r: ReturnType<Worker['ranks']>[number]) => number | null) =>
      new Gauge({
        name, help, labelNames: ['worker', 'rank', 'connection_mode', 'runtime'], registers,
        collect() {
          this.reset();
          for (const w of workers()) {
            for (const r of w.ranks()) {
              const v = value(r);
              if (v !== null) this.set({ worker: w.url, rank: String(r.rank), connection_mode: ZMQ, runtime: w.runtime }, v);
            }
          }
        },
      });
    rankGauge('smg_engine_running_requests', 'Running requests the engine rank last reported', (r) => r.load?.numRunning ?? null);
    rankGauge('smg_engine_waiting_requests', 'Waiting requests the engine rank last reported', (r) => r.load?.numWaiting ?? null);
    rankGauge('smg_engine_kv_cache_usage_ratio', 'KV-cache usage the engine rank last reported (0..1)', (r) => r.load?.kvCacheUsage ?? null);
    rankGauge('smg_engine_inflight_requests', 'Requests the gateway has in flight on the engine rank', (r) => r.inFlight);
  }
}
