/**
 * Per-request accounting: smg_http_* metrics and the in-flight count graceful shutdown waits on.
 * Both last until the response body's last byte, so streams count while they stream.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context, MiddlewareHandler } from 'hono';
import type { CounterChild, HistogramChild } from '../fast-metrics.js';
import { onBodyDone } from '../body-done.js';
import { onResponseClosed } from '../raw-response.js';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from './env.js';

/** The route template that answered, so path labels stay bounded. */
function routeLabel(c: Context<AppEnv>): string {
  const routes = c.req.matchedRoutes;
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i].method !== 'ALL') return routes[i].path;
  return 'unmatched';
}

/** Label children resolved once per label set: no label lookup per request. */
interface RouteSeries {
  requests: CounterChild;
  duration: HistogramChild;
}
const MAX_CACHED = 1024;

function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, (v = make()));
  }
  return v;
}

export function httpAccounting(ctx: GatewayContext): MiddlewareHandler<AppEnv> {
  const m = ctx.metrics;
  const routes = new Map<string, RouteSeries>();
  const responses = new Map<string, CounterChild>();
  // Not async: the layer's own promise and await were a hop per request (next() settles it).
  return (c, next) => {
    const start = performance.now();
    const release = ctx.lifecycle.begin();
    m.httpActive.inc();
    const done = () => {
      release();
      m.httpActive.dec();
    };
    return next().then(
      () => {
        const path = routeLabel(c);
        const method = c.req.method;
        const route = cached(routes, `${method} ${path}`, () => {
          const labels = { method, path };
          return { requests: m.httpRequests.labels(labels), duration: m.httpDuration.labels(labels) };
        });
        route.requests.inc();
        route.duration.observe((performance.now() - start) / 1000);
        const status = c.res.status;
        // The "already sent" marker of a response written to the socket carries no error code
        // (reading its web Headers per request cost more than the rest of this accounting).
        const errorCode = c.res === RESPONSE_ALREADY_SENT ? '' : (c.res.headers.get('X-SMG-Error-Code') ?? '');
        cached(responses, `${path} ${status} ${errorCode}`, () =>
          m.httpResponses.labels({ path, status_code: String(status), error_code: errorCode }),
        ).inc();
        // Under Node the response's own close event marks its last byte (a stream written directly
        // has no body here at all); under app.request() the body stream's end does.
        const outgoing = c.env?.outgoing;
        if (outgoing) onResponseClosed(outgoing, done);
        else c.res = onBodyDone(c.res, done);
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  };
}
