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

/**
 * The accounting itself, one per gateway: the Hono layer below and the direct front of the
 * inference routes (gateway/direct-front.ts) count into the same series.
 */
export class HttpAccounting {
  private readonly routes = new Map<string, RouteSeries>();
  private readonly responses = new Map<string, CounterChild>();

  constructor(private readonly ctx: GatewayContext) {}

  /** Counts a request in; the function returned counts it out (once its response is over). */
  begin(): () => void {
    const release = this.ctx.lifecycle.begin();
    const m = this.ctx.metrics;
    m.httpActive.inc();
    return () => {
      release();
      m.httpActive.dec();
    };
  }

  /** The request was answered `res` by the route `path` (its template); `start` is its performance.now(). */
  answered(method: string, path: string, start: number, res: Response): void {
    const m = this.ctx.metrics;
    const route = cached(this.routes, `${method} ${path}`, () => {
      const labels = { method, path };
      return { requests: m.httpRequests.labels(labels), duration: m.httpDuration.labels(labels) };
    });
    route.requests.inc();
    route.duration.observe((performance.now() - start) / 1000);
    const status = res.status;
    // The "already sent" marker of a response written to the socket carries no error code
    // (reading its web Headers per request cost more than the rest of this accounting).
    const errorCode = res === RESPONSE_ALREADY_SENT ? '' : (res.headers.get('X-SMG-Error-Code') ?? '');
    cached(this.responses, `${path} ${status} ${errorCode}`, () => m.httpResponses.labels({ path, status_code: String(status), error_code: errorCode })).inc();
  }
}

const shared = new WeakMap<GatewayContext, HttpAccounting>();

export function httpAccountingOf(ctx: GatewayContext): HttpAccounting {
  let a = shared.get(ctx);
  if (!a) shared.set(ctx, (a = new HttpAccounting(ctx)));
  return a;
}

export function httpAccounting(ctx: GatewayContext): MiddlewareHandler<AppEnv> {
  const accounting = httpAccountingOf(ctx);
  // Not async: the layer's own promise and await were a hop per request (next() settles it).
  return (c, next) => {
    const start = performance.now();
    const done = accounting.begin();
    return next().then(
      () => {
        accounting.answered(c.req.method, routeLabel(c), start, c.res);
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
