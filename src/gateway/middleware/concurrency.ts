/**
 * `--max-concurrent-requests` with a bounded wait queue. The permit is held until the response
 * body ends, so a long stream keeps its slot. Full queue → 429; waited too long → 408.
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

class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly max: number,
    private readonly queueSize: number,
    private readonly queueTimeoutMs: number,
  ) {}

  /** Resolves to a release function, or to 'full' / 'timeout'. */
  acquire(): Promise<(() => void) | 'full' | 'timeout'> {
    if (this.active < this.max) {
      this.active += 1;
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
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // Hand the slot straight to the next waiter; `active` stays the same.
      if (next) next.grant();
      else this.active -= 1;
    };
  }
}

export function concurrencyLimit(max: number, queueSize: number, queueTimeoutSecs: number): MiddlewareHandler<AppEnv> {
  if (max < 1) return async (_c, next) => next();
  const limiter = new ConcurrencyLimiter(max, Math.max(0, queueSize), queueTimeoutSecs * 1000);
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
