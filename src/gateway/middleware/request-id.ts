/**
 * Request ids (request-pipeline §2.1): the first of the usual headers, else a generated id whose
 * prefix names the endpoint. Echoed as `x-request-id`.
 */
import { randomInt } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

const HEADERS = ['x-request-id', 'x-correlation-id', 'x-trace-id', 'request-id'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function prefixFor(path: string): string {
  if (path.endsWith('/chat/completions')) return 'chatcmpl-';
  if (path.endsWith('/completions')) return 'cmpl-';
  if (path.endsWith('/generate')) return 'gnt-';
  if (path.endsWith('/responses')) return 'resp-';
  if (path.endsWith('/messages')) return 'msg_';
  return 'req-';
}

function generateRequestId(path: string): string {
  let s = prefixFor(path);
  for (let i = 0; i < 24; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let id: string | undefined;
    for (const h of HEADERS) {
      const v = c.req.header(h);
      if (v) {
        id = v;
        break;
      }
    }
    id ??= generateRequestId(c.req.path);
    c.set('requestId', id);
    await next();
    try {
      c.res.headers.set('x-request-id', id);
    } catch {
      // A handler may return a Response with immutable headers (e.g. one passed through from fetch).
      const copy = new Response(c.res.body, c.res);
      copy.headers.set('x-request-id', id);
      c.res = undefined;
      c.res = copy;
    }
  };
}
