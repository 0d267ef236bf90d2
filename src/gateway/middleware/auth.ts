/**
 * `--api-key`: key check on /v1/* and the worker/admin routes; 401 with an empty body. The key is
 * read from `Authorization: Bearer <key>` (OpenAI clients) or `x-api-key: <key>` (Anthropic
 * clients send their key there); either one matching lets the request through.
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

function bearerKey(header: string | undefined): string | null {
  const m = /^Bearer\s+(.+)$/i.exec((header ?? '').trim());
  return m ? m[1].trim() : null;
}

export function apiKeyAuth(apiKey: string | null): MiddlewareHandler<AppEnv> {
  const expected = apiKey;
  return async (c, next) => {
    if (expected === null) return next();
    const bearer = bearerKey(c.req.header('authorization'));
    const xApiKey = c.req.header('x-api-key')?.trim() ?? '';
    const ok = (bearer !== null && keyMatches(expected, bearer)) || (xApiKey.length > 0 && keyMatches(expected, xApiKey));
    if (!ok) return c.body(null, 401);
    await next();
  };
}
