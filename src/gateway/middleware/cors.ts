/**
 * CORS (policy: cors-policy.ts). Registered outside auth, the drain gate and the limits, so a
 * browser's preflight is answered before any of them looks at it: a preflight never carries the
 * Authorization header, and refusing it would block every cross-origin call.
 *
 * Hono's own `cors()` is not used: it writes its headers onto `c.res` before the handler runs, and
 * both the error envelopes here (which replace the response) and the SSE streams written straight
 * to the Node socket drop them. This one sets them on the Node response before the handler (Node
 * merges them into whatever head is written later) and on the final web Response after it.
 *
 * Preflight answers follow Starlette's CORSMiddleware, which is what vLLM runs: a preflight whose
 * origin, method or headers are not allowed gets `400 Disallowed CORS <what>`.
 */
import type { MiddlewareHandler } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { CorsPolicy } from './cors-policy.js';
import type { AppEnv } from './env.js';

export function cors(policy: CorsPolicy): MiddlewareHandler<AppEnv> {
  const anyOrigin = policy.origins === '*';
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    const allowed = anyOrigin || (policy.origins as ReadonlySet<string>).has(origin);
    const requestMethod = c.req.method === 'OPTIONS' ? c.req.header('access-control-request-method') : undefined;
    if (requestMethod !== undefined) return preflight(policy, origin, allowed, requestMethod, c.req.header('access-control-request-headers'));
    if (!allowed) return next();

    const headers = responseHeaders(policy, origin);
    const outgoing = c.env?.outgoing;
    if (outgoing && !outgoing.headersSent) for (const [k, v] of headers) outgoing.setHeader(k, v);
    await next();
    if (c.res === RESPONSE_ALREADY_SENT) return;
    try {
      for (const [k, v] of headers) c.res.headers.set(k, v);
    } catch {
      // Immutable headers (a Response passed through from fetch): copy it once.
      const copy = new Response(c.res.body, c.res);
      for (const [k, v] of headers) copy.headers.set(k, v);
      c.res = undefined;
      c.res = copy;
    }
  };
}

/** Headers of an allowed cross-origin response (actual request or preflight). */
function responseHeaders(policy: CorsPolicy, origin: string): [string, string][] {
  // With credentials a browser refuses `*`, so the origin is echoed (as Starlette does).
  const echo = policy.origins !== '*' || policy.credentials;
  const out: [string, string][] = [['Access-Control-Allow-Origin', echo ? origin : '*']];
  if (echo) out.push(['Vary', 'Origin']);
  if (policy.credentials) out.push(['Access-Control-Allow-Credentials', 'true']);
  out.push(['Access-Control-Expose-Headers', policy.exposeHeaders]);
  return out;
}

function preflight(policy: CorsPolicy, origin: string, originOk: boolean, method: string, requested: string | undefined): Response {
  const asked = (requested ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  const failures: string[] = [];
  if (!originOk) failures.push('origin');
  if (policy.methods !== '*' && !policy.methods.has(method.toUpperCase())) failures.push('method');
  if (policy.headers !== '*' && !asked.every((h) => (policy.headers as ReadonlySet<string>).has(h))) failures.push('headers');
  if (failures.length > 0) {
    return new Response(`Disallowed CORS ${failures.join(', ')}`, { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8', Vary: 'Origin' } });
  }
  const headers = new Headers(responseHeaders(policy, origin));
  headers.delete('Access-Control-Expose-Headers');
  // `*` is a literal name under credentials, so the asked-for method and headers are echoed.
  headers.set('Access-Control-Allow-Methods', policy.methods === '*' ? method.toUpperCase() : [...policy.methods].join(', '));
  if (asked.length > 0) headers.set('Access-Control-Allow-Headers', asked.join(', '));
  headers.set('Access-Control-Max-Age', String(policy.maxAgeSecs));
  headers.append('Vary', 'Access-Control-Request-Method, Access-Control-Request-Headers');
  return new Response(null, { status: 204, headers });
}
