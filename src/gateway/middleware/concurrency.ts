/**
 * `--max-concurrent-requests` with a bounded wait queue, as SMG's token bucket
 * (smg-project/smg model_gateway/src/middleware/token_bucket.rs): the bucket holds
 * max-concurrent-requests tokens, a request takes one and gives it back when its body ends, so a
 * long stream keeps its slot. `--rate-limit-tokens-per-second` also refills the bucket at that
 * rate (capped at its size), which admits more than the cap over time; 0 or unset = no refill, a
 * plain concurrency cap. Full queue → 429; waited too long → 408.
 */
import type { MiddlewareHandler } from 'hono';
import { onBodyDone } from '../body-done.js';
import { onResponseClosed } from '../raw-response.js';
import { gatewayError } from '../errors.js';
import type { AppEnv } from './env.js';

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

class TokenBucketLimiter {
  private tokens: number;
  private last = performance.now();
  private readonly queue: Waiter[] = [];
  private wake: NodeJS.Timeout | null = null;

  constructor(
    private readonly capacity: number,
    private readonly queueSize: number,
    private readonly queueTimeoutMs: number,
    private readonly refillPerSec: number,
  ) {
    this.tokens = capacity;
  }

  /** Resolves to a release function, or to 'full' / 'timeout'. */
  acquire(): Promise<(() => void) | 'full' | 'timeout'> {
    this.refill();
    if (this.queue.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve(this.releaser());
    }
    if (this.queue.length >= this.queueSize) return Promise.resolve('full');
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser());
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          resolve('timeout');
        }, this.queueTimeoutMs),
      };
      this.queue.push(waiter);
      this.scheduleWake();
    });
  }

  private refill(): void {
    const now = performance.now();
    if (this.refillPerSec > 0) this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSec);
    this.last = now;
  }

  private grantWaiters(): void {
    while (this.queue.length > 0 && this.tokens >= 1) {
      this.tokens -= 1;
      this.queue.shift()!.grant();
    }
  }

  /** With a refill rate, waiters are also woken when the next token has dripped in. */
  private scheduleWake(): void {
    if (this.refillPerSec <= 0 || this.wake !== null || this.queue.length === 0) return;
    const ms = Math.max(1, ((1 - this.tokens) / this.refillPerSec) * 1000);
    this.wake = setTimeout(() => {
      this.wake = null;
      this.refill();
      this.grantWaiters();
      this.scheduleWake();
    }, ms);
    this.wake.unref?.();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.refill();
      this.tokens = Math.min(this.capacity, this.tokens + 1);
      this.grantWaiters();
    };
  }
}

export function concurrencyLimit(
  max: number,
  queueSize: number,
  queueTimeoutSecs: number,
  refillPerSec: number | null = null,
): MiddlewareHandler<AppEnv> {
  if (max < 1) return async (_c, next) => next();
  const limiter = new TokenBucketLimiter(max, Math.max(0, queueSize), queueTimeoutSecs * 1000, refillPerSec ?? 0);
  return async (c, next) => {
    const permit = await limiter.acquire();
    if (permit === 'full') return gatewayError(429, 'too_many_requests', 'Too many concurrent requests and the wait queue is full');
    if (permit === 'timeout') return gatewayError(408, 'queue_timeout', 'Request timed out waiting for a concurrency slot');
    try {
      await next();
    } catch (err) {
      permit();
      throw err;
    }
    const outgoing = c.env?.outgoing;
    if (outgoing) onResponseClosed(outgoing, permit);
    else c.res = onBodyDone(c.res, permit);
  };
}
