/**
 * Endpoints an OpenAI/vLLM client may call that the ZMQ direct backend cannot serve: SMG answers
 * 501 `unsupported_backend` (request-pipeline §3.6, cli-and-api §5.8).
 */
import type { Hono } from 'hono';
import { gatewayError } from '../errors.js';
import type { AppEnv } from '../middleware/env.js';

export const UNSUPPORTED_PATHS = ['/v1/embeddings', '/v1/classify'] as const;

export function registerUnsupportedRoutes(app: Hono<AppEnv>): void {
  for (const path of UNSUPPORTED_PATHS) {
    app.post(path, () => gatewayError(501, 'unsupported_backend', 'ZMQ backend does not support embeddings yet'));
  }
}
