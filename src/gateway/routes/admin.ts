/** POST /flush_cache: ZMQ engines have no cache-flush RPC, so every worker here is skipped. */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from '../middleware/env.js';

export function registerAdminRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  app.post('/flush_cache', (c) => {
    const z = ctx.workers.list().length;
    const message =
      z === 0
        ? 'No workers available for cache flush'
        : `No cache-flush-capable workers available (${z} ZMQ workers skipped: no cache-flush RPC)`;
    return c.json({
      status: 'success',
      message,
      workers_flushed: 0,
      total_http_workers: 0,
      total_grpc_workers: 0,
      total_zmq_workers_skipped: z,
      total_workers: z,
    });
  });
}
