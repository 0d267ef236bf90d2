/** Probe and info routes: liveness/health (always OK), readiness, and the 501s of the ZMQ router. */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from '../middleware/env.js';

export function registerProbeRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  app.get('/liveness', (c) => c.text('OK'));
  app.get('/health', (c) => c.text('OK'));

  app.get('/readiness', (c) => {
    if (ctx.lifecycle.draining) return c.json({ status: 'not ready', reason: 'draining' }, 503);
    const r = ctx.workers.readiness();
    if (!r.ready) return c.json({ status: 'not ready', reason: r.reason }, 503);
    return c.json({ status: 'ready', healthy_workers: r.healthyWorkers, total_workers: r.totalWorkers });
  });

  app.get('/health_generate', (c) => c.text('Health generate not implemented', 501));
  app.get('/get_server_info', (c) => c.text('Server info not implemented', 501));
  app.get('/get_model_info', (c) => c.text('Get model info not implemented', 501));
}
