/**
 * Inference routes are placeholders over the protocol seam (ApiDeps.inference): the route only
 * packages the request; the pipeline does everything else. Without a handler → 501.
 */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import { gatewayError } from '../errors.js';
import { closeSignal } from '../close-signal.js';
import { rawResponse } from '../raw-response.js';
import type { AppEnv } from '../middleware/env.js';
import { INFERENCE_PATHS, type InferenceEndpoint } from '../../api/types.js';
import { runWithTrace, startRequestTrace } from '../../tracing/request-trace.js';

/** Always routed (501 until the pipeline is plugged in); the others exist only with a handler. */
const ALWAYS: readonly InferenceEndpoint[] = ['chat_completions', 'completions'];

export function registerInferenceRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  const handlers = ctx.deps.inference ?? {};
  for (const [endpoint, path] of Object.entries(INFERENCE_PATHS) as [InferenceEndpoint, string][]) {
    const handler = handlers[endpoint];
    if (!handler && !ALWAYS.includes(endpoint)) continue;
    app.post(path, async (c) => {
      if (!handler) {
        return gatewayError(501, 'not_implemented', `${path} is not available: no request pipeline is configured`);
      }
      const outgoing = c.env?.outgoing;
      const call = {
        request: c.req.raw,
        raw: outgoing ? rawResponse(outgoing) : undefined,
        requestId: c.get('requestId'),
        // Node: a light close signal; under app.request() the web Request's own.
        signal: outgoing ? closeSignal(outgoing) : c.req.raw.signal,
        services: ctx.servicesFor(c.req.raw.headers),
        history: ctx.history,
      };
      // Null unless --otlp-traces-endpoint / --enable-trace: then the handler runs as it always does.
      const trace = startRequestTrace(c.req.raw.headers, { 'http.request.method': 'POST', 'url.path': path, 'smg.request_id': call.requestId });
      if (!trace) return handler(call);
      try {
        const res = await runWithTrace(trace, () => handler(call));
        // A stream written to the socket has its status there (its Response is only a marker).
        trace.release(call.raw && res === call.raw.sent ? outgoing?.statusCode : res.status);
        return res;
      } catch (err) {
        trace.fail(err instanceof Error ? err.message : String(err));
        trace.release(500);
        throw err;
      }
    });
  }
}
