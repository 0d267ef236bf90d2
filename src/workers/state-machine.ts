/**
 * The per-probe worker state machine (pure, so thresholds are tested without timers).
 *
 *   pending   → ready      after `success` consecutive successes (ZMQ: on handshake instead)
 *   pending   → failed     once total pending probes reach 10 × `failure`
 *   ready     → not_ready  after `failure` consecutive failures
 *   not_ready → ready      after `success` consecutive successes
 *   not_ready → failed     after 3 × `failure` consecutive failures
 *   failed, draining: no probe changes them.
 */
import type { WorkerStatus } from './types.js';

export interface ProbeCounters {
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  pendingProbes: number;
}

export interface Thresholds {
  successThreshold: number;
  failureThreshold: number;
}

export function freshCounters(): ProbeCounters {
  return { consecutiveSuccesses: 0, consecutiveFailures: 0, pendingProbes: 0 };
}

export function applyProbe(
  status: WorkerStatus,
  counters: ProbeCounters,
  ok: boolean,
  t: Thresholds,
): { status: WorkerStatus; counters: ProbeCounters } {
  if (status === 'failed' || status === 'draining') return { status, counters };
  const success = Math.max(1, t.successThreshold);
  const failure = Math.max(1, t.failureThreshold);
  const c: ProbeCounters = ok
    ? { ...counters, consecutiveSuccesses: counters.consecutiveSuccesses + 1, consecutiveFailures: 0 }
    : { ...counters, consecutiveSuccesses: 0, consecutiveFailures: counters.consecutiveFailures + 1 };

  switch (status) {
    case 'pending':
      c.pendingProbes += 1;
      if (ok && c.consecutiveSuccesses >= success) return { status: 'ready', counters: c };
      if (c.pendingProbes >= 10 * failure) return { status: 'failed', counters: c };
      return { status, counters: c };
    case 'ready':
      if (!ok && c.consecutiveFailures >= failure) return { status: 'not_ready', counters: c };
      return { status, counters: c };
    case 'not_ready':
      if (ok && c.consecutiveSuccesses >= success) return { status: 'ready', counters: c };
      if (!ok && c.consecutiveFailures >= 3 * failure) return { status: 'failed', counters: c };
      return { status, counters: c };
  }
}
