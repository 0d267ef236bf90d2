/**
 * Once shutdown starts, only probes are served; everything else gets 503 so clients retry
 * elsewhere while in-flight requests finish.
 */
import type { MiddlewareHandler } from 'hono';
import type { GatewayContext } from '../context.js';
import { gatewayError } from '../errors.js';
import type { AppEnv } from './env.js';

const PROBES = new Set(['/liveness', '/health', '/readiness']);

export function drainGate(ctx: GatewayContext): MiddlewareHandler<AppEnv> {
  // Not async: a pass-through layer adds no promise of its own per request.
  return (c, next) => {
    if (ctx.lifecycle.draining && !PROBES.has(c.req.path)) {
      return Promise.resolve(gatewayError(503, 'server_draining', 'Server is shutting down and accepts no new requests'));
    }
    return next();
  };
}
