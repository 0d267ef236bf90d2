/**
 * Delay before restarting a crashed engine (opt-in `--restart-engines`): exponential from
 * `initialMs`, capped at `maxMs`. An engine that stayed up for `resetAfterMs` counts as healthy
 * again, so one crash after days of uptime restarts quickly instead of inheriting old backoff.
 */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 60_000, resetAfterMs: 120_000 };

/** Delay for restart number `attempt` (1-based): initial, 2×, 4×, … up to the cap. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exp = Math.min(attempt - 1, 30); // keeps 2**exp finite; the cap applies long before
  return Math.min(policy.initialMs * 2 ** exp, policy.maxMs);
}

/** The attempt number for the next restart, given how long the engine just ran. */
export function nextAttempt(previousAttempts: number, uptimeMs: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  return uptimeMs >= policy.resetAfterMs ? 1 : previousAttempts + 1;
}
