/**
 * How workers look on GET /workers: the spec fields (never api_key; empty maps omitted) plus id,
 * model_id (and served_model_names when it has more than one name), status, is_healthy, load,
 * `reason` (why it does not serve; null when it does), `last_error`, and per-rank engine state
 * with totals.
 */
import type { JobStatus } from './jobs.js';
import type { WorkerSpec } from './types.js';
import { errorView, type Worker } from './worker.js';

function specFields(spec: WorkerSpec, into: Record<string, unknown>): void {
  into.worker_type = spec.workerType;
  into.priority = spec.priority;
  into.cost = spec.cost;
  if (Object.keys(spec.labels).length > 0) into.labels = spec.labels;
  if (spec.models.length > 0) into.models = spec.models;
  if (spec.servedModelName !== null) into.served_model_name = spec.servedModelName;
  if (Object.keys(spec.health).length > 0) into.health = spec.health;
}

export function workerEntry(w: Worker): Record<string, unknown> {
  const { identity } = w;
  const entry: Record<string, unknown> = {
    id: w.id,
    url: w.url,
    model_id: w.modelId,
  };
  if (identity.modelNames.length > 1) entry.served_model_names = identity.modelNames;
  entry.connection_mode = w.isHttp ? 'http' : 'zmq';
  if (!w.isHttp) entry.runtime_type = w.runtime;
  else if (identity.spec.runtimeType !== null) entry.runtime_type = identity.spec.runtimeType;
  specFields(identity.spec, entry);
  entry.max_connection_attempts = Math.max(identity.health.successThreshold, 1) * 10;
  if (identity.engineCount > 1) entry.dp_size = identity.engineCount;
  if (identity.handshakeOverride !== null) entry.zmq_handshake_address = identity.handshakeOverride;
  entry.is_healthy = w.isReady;
  entry.status = w.status;
  entry.reason = w.notReadyReason();
  entry.last_error = errorView(w.lastError);
  entry.load = w.load;
  if (w.breaker) {
    entry.circuit_breaker = {
      state: w.breaker.state,
      consecutive_failures: w.breaker.consecutiveFailures,
      consecutive_successes: w.breaker.consecutiveSuccesses,
    };
  }
  if (w.isHttp) return entry;

  const ranks = w.ranks();
  entry.engines = ranks.map((r) => ({
    rank: r.rank,
    in_flight: r.inFlight,
    num_running: r.load?.numRunning ?? null,
    num_waiting: r.load?.numWaiting ?? null,
    kv_cache_usage: r.load?.kvCacheUsage ?? null,
  }));
  entry.engine_load = {
    engine_count: identity.engineCount,
    engines_connected: ranks.length,
    in_flight: ranks.reduce((s, r) => s + r.inFlight, 0),
    num_running: ranks.reduce((s, r) => s + (r.load?.numRunning ?? 0), 0),
    num_waiting: ranks.reduce((s, r) => s + (r.load?.numWaiting ?? 0), 0),
  };
  return entry;
}

/** GET /workers/{id} while the AddWorker job has not run yet. */
export function placeholderEntry(id: string, spec: WorkerSpec, job: JobStatus | null): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id,
    url: spec.url,
    connection_mode: spec.url.startsWith('ipc://') ? 'zmq' : (spec.connectionMode ?? 'http'),
  };
  if (spec.runtimeType !== null) entry.runtime_type = spec.runtimeType;
  specFields(spec, entry);
  entry.is_healthy = false;
  entry.status = 'pending';
  entry.load = 0;
  if (job) entry.job_status = job;
  return entry;
}
