import type { HttpBindings } from '@hono/node-server';

/**
 * Hono environment of the main app: per-request variables set by middleware, and the Node
 * request/response when served by @hono/node-server (absent under `app.request()` in tests).
 */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: { requestId: string };
}
