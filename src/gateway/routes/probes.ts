/**
 * Probe and info routes: liveness/health (always OK), readiness, /version, and the 501s of the
 * ZMQ router. A 503 from /readiness keeps SMG's `reason` and adds `workers`: each registered
 * worker that does not serve, with why (the handshake address it waits on and since when, a
 * refused socket directory, a failed tokenizer) and its last error.
 */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from '../middleware/env.js';
import { packageVersion } from '../../util/version.js';

/** The three probe routes, also served alone on --health-check-port. */
export function registerHealthRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  app.get('/liveness', (c) => c.text('OK'));
  app.get('/health', (c) => c.text('OK'));

  app.get('/readiness', (c) => {
    if (ctx.lifecycle.draining) return c.json({ status: 'not ready', reason: 'draining' }, 503);
    const r = ctx.workers.readiness();
    if (!r.ready) return c.json({ status: 'not ready', reason: r.reason, workers: r.workers }, 503);
    return c.json({ status: 'ready', healthy_workers: r.healthyWorkers, total_workers: r.totalWorkers });
  });
}

export function registerProbeRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  registerHealthRoutes(app, ctx);
  // vLLM's server answers {"version": <vllm version>}; this is the gateway's.
  app.get('/version', (c) => c.json({ version: packageVersion() }));

  app.get('/health_generate', (c) => c.text('Health generate not implemented', 501));
  app.get('/get_server_info', (c) => c.text('Server info not implemented', 501));
  app.get('/get_model_info', (c) => c.text('Get model info not implemented', 501));
}
