/**
 * Per-request accounting: smg_http_* metrics and the in-flight count graceful shutdown waits on.
 * Both last until the response body's last byte, so streams count while they stream.
 */
import type { Context, MiddlewareHandler } from 'hono';
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

export function httpAccounting(ctx: GatewayContext): MiddlewareHandler<AppEnv> {
  const m = ctx.metrics;
  return async (c, next) => {
    const start = performance.now();
    const release = ctx.lifecycle.begin();
    m.httpActive.inc();
    const done = () => {
      release();
      m.httpActive.dec();
    };
    try {
      await next();
    } catch (err) {
      done();
      throw err;
    }
    const path = routeLabel(c);
    const labels = { method: c.req.method, path };
    m.httpRequests.inc(labels);
    m.httpDuration.observe(labels, (performance.now() - start) / 1000);
    m.httpResponses.inc({ path, status_code: String(c.res.status), error_code: c.res.headers.get('X-SMG-Error-Code') ?? '' });
    // Under Node the response's own close event marks its last byte (a stream written directly
    // has no body here at all); under app.request() the body stream's end does.
    const outgoing = c.env?.outgoing;
    if (outgoing) onResponseClosed(outgoing, done);
    else c.res = onBodyDone(c.res, done);
  };
}
