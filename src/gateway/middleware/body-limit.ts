/**
 * The request body size limit (--max-payload-size). A body with a Content-Length (every JSON body
 * an SDK sends) is judged by that header alone: Node's HTTP parser delivers exactly that many bytes
 * or fails the request. Hono's bodyLimit reads `c.req.raw.body` first, which makes the Node
 * adapter build a full web Request and ReadableStream for every request (~9 % of the event loop per
 * short chat request in a CPU profile) and sends the handler's `text()` through them; here a body
 * is read straight from the socket. Chunked bodies (no Content-Length) still go through Hono's
 * middleware, which counts the bytes as they stream.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';

export function bodyLimit(maxBytes: number, onError: (c: Context) => Response): MiddlewareHandler {
  const counted = streamingBodyLimit({ maxSize: maxBytes, onError });
  return async (c, next) => {
    const headers = c.req.raw.headers;
    const length = headers.get('content-length');
    if (length !== null && !headers.has('transfer-encoding')) {
      return Number.parseInt(length, 10) > maxBytes ? onError(c) : next();
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return counted(c, next);
  };
}
