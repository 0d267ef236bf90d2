/** GET /v1/models: every registered worker's model id (pending ones too), de-duplicated. */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from '../middleware/env.js';

export function registerModelRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  app.get('/v1/models', (c) => {
    const ids = ctx.workers.modelIds();
    if (ids.length === 0) return c.text('No models available', 503);
    return c.json({
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'self_hosted' })),
    });
  });
}
