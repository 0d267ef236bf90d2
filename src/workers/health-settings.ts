import type { ResolvedHealth, WorkerSpec, WorkersConfig } from './types.js';

/** A worker's health settings: its spec's overrides over the gateway defaults. */
export function resolveHealth(spec: WorkerSpec, config: WorkersConfig): ResolvedHealth {
  const h = spec.health;
  return {
    timeoutSecs: h.timeout_secs ?? config.health.timeoutSecs,
    intervalSecs: h.check_interval_secs ?? config.health.intervalSecs,
    successThreshold: h.success_threshold ?? config.health.successThreshold,
    failureThreshold: h.failure_threshold ?? config.health.failureThreshold,
    drainSettleSecs: h.drain_settle_secs ?? config.drainSettleSecs,
  };
}
