/**
 * `--api-key`: Bearer check on /v1/* and the worker/admin routes; 401 with an empty body.
 * Both sides are hashed first so the comparison is constant-time whatever the lengths.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function keyMatches(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}

export function apiKeyAuth(apiKey: string | null): MiddlewareHandler<AppEnv> {
  const expected = apiKey;
  return async (c, next) => {
    if (expected === null) return next();
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!m || !keyMatches(expected, m[1].trim())) return c.body(null, 401);
    await next();
  };
}
