/**
 * Retry policy of the forwarder, as SMG's (smg-project/smg model_gateway/src/routers/common/
 * retry.rs, flags in model_gateway/src/main.rs): `--retry-max-retries` is the number of attempts
 * in all (5), backoff starts at 50 ms, grows ×1.5, is capped at 30 s and jittered ±20 %. A
 * response is retried on 408, 429, 500, 502, 503, 504 — and only while nothing has reached the
 * client, which for a pass-through proxy means: before the upstream's response head is relayed.
 */

export interface RetryConfig {
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  backoffMultiplier: number;
  jitterFactor: number;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Statuses that count against the circuit breaker (SMG worker.rs record_outcome): the retryable
 * ones except 429, which is capacity pushback, not a fault, and records nothing either way.
 */
export function breakerOutcome(status: number): 'success' | 'failure' | 'none' {
  if (status === 429) return 'none';
  return RETRYABLE_STATUSES.has(status) ? 'failure' : 'success';
}

/** Delay before attempt `attempt + 1` (0-based `attempt` that just failed). */
export function backoffMs(config: RetryConfig, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(Math.floor(config.initialBackoffMs * config.backoffMultiplier ** attempt), config.maxBackoffMs);
  const jitter = Math.min(Math.max(config.jitterFactor, 0), 1);
  if (jitter === 0) return base;
  const scale = (random() * 2 - 1) * jitter;
  return Math.max(0, Math.round(base + base * scale));
}
