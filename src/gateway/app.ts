/**
 * The route table. `buildApp(ctx)` returns a Hono app with no socket, so tests call
 * `app.request()`; `startGateway` serves the same app. The metrics app is separate (own port).
 */
import { Hono } from 'hono';
import type { GatewayContext } from './context.js';
import { gatewayError } from './errors.js';
import { accessLog } from './middleware/access-log.js';
import { apiKeyAuth } from './middleware/auth.js';
import { concurrencyLimit } from './middleware/concurrency.js';
import { cors } from './middleware/cors.js';
import { corsPolicyOf } from './middleware/cors-policy.js';
import { drainGate } from './middleware/drain-gate.js';
import { bodyLimit } from './middleware/body-limit.js';
import { bodyBudget, sharedBodyBudget } from './middleware/body-budget.js';
import { passThroughChain } from './middleware/chain.js';
import type { AppEnv } from './middleware/env.js';
import { httpAccounting } from './middleware/http-metrics.js';
import { requestId } from './middleware/request-id.js';
import { asAnthropicError } from '../api/anthropic/errors.js';
import { asOpenAiError } from '../api/openai/errors.js';
import { INFERENCE_PATHS } from '../api/types.js';
import { routeMisses } from './route-misses.js';
import { isForwarded } from '../forward/forwarded-mark.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerInferenceRoutes } from './routes/inference.js';
import { registerModelRoutes } from './routes/models.js';
import { registerHealthRoutes, registerProbeRoutes } from './routes/probes.js';
import { registerUnsupportedRoutes } from './routes/unsupported.js';
import { registerWorkerRoutes } from './routes/workers.js';

const GUARDED = ['/v1/*', '/workers', '/workers/*', '/flush_cache', '/generate', '/tokenize', '/detokenize'];
const ANTHROPIC_PATHS: readonly string[] = [INFERENCE_PATHS.messages, INFERENCE_PATHS.messages_count_tokens];

export function buildApp(ctx: GatewayContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cfg = ctx.config;

  app.use('*', httpAccounting(ctx));
  if (!cfg.disableAccessLog) app.use('*', accessLog(ctx.logger, { logRequests: cfg.logRequests, maxLogLen: cfg.maxLogLen }));
  app.use('*', requestId());
  // Outside the error envelopes (it must see their final response) and before auth (preflights).
  const corsPolicy = corsPolicyOf(cfg);
  if (corsPolicy) app.use('*', cors(corsPolicy));
  // Anthropic clients read every failure on the Messages paths in Anthropic's envelope, the
  // gateway's own refusals (401, 413, 429, 503, …) included.
  for (const p of ANTHROPIC_PATHS) {
    app.use(p, (c, next) =>
      next().then(() => {
        if (c.res.status < 400 || isForwarded(c.res)) return;
        return asAnthropicError(c.res, c.get('requestId')).then((shaped) => {
          if (shaped !== c.res) {
            c.res = undefined;
            c.res = shaped;
          }
        });
      }),
    );
  }
  // Every other API path answers failures in the one JSON envelope, the middleware refusals
  // (an empty 401, a plain-text 503) included.
  for (const p of GUARDED) {
    // A success passes with no promise hop of its own (asOpenAiError leaves status < 400 alone).
    app.use(p, (c, next) =>
      next().then(() => {
        if (c.res.status < 400 || ANTHROPIC_PATHS.includes(c.req.path) || isForwarded(c.res)) return;
        return asOpenAiError(c.res).then((shaped) => {
          if (shaped !== c.res) {
            c.res = undefined;
            c.res = shaped;
          }
        });
      }),
    );
  }
  const drain = drainGate(ctx);
  const limitBody = bodyLimit(cfg.maxBodyBytes, () => gatewayError(413, 'request_too_large', 'Failed to buffer the request body: length limit exceeded'));
  // After auth: an unauthenticated client cannot spend the budget.
  const budget = bodyBudget(cfg.maxBodyBytes, undefined, sharedBodyBudget(ctx, cfg.maxBodyBytes));
  // Without a key (or a cap, below) the layer would only pass every request on: not registered,
  // and the intake checks then run as one layer (middleware/chain.ts).
  if (cfg.apiKey !== null) {
    app.use('*', passThroughChain(drain, limitBody));
    const auth = apiKeyAuth(cfg.apiKey);
    for (const p of GUARDED) app.use(p, auth);
    app.use('*', budget);
  } else {
    app.use('*', passThroughChain(drain, limitBody, budget));
  }
  if (cfg.maxConcurrentRequests >= 1) {
    const limit = concurrencyLimit(cfg.maxConcurrentRequests, cfg.queueSize, cfg.queueTimeoutSecs, cfg.rateLimitTokensPerSecond);
    for (const p of Object.values(INFERENCE_PATHS)) app.use(p, limit);
  }

  registerProbeRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerWorkerRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerInferenceRoutes(app, ctx);
  registerHistoryRoutes(app, ctx);
  registerUnsupportedRoutes(app);

  // A known path asked with the wrong method is a 405 naming the methods it takes; anything else a 404.
  const misses = routeMisses(app.routes);
  app.notFound((c) => {
    const { method, path } = c.req;
    const allowed = misses.allowedMethods(path);
    if (allowed.length > 0) {
      return gatewayError(405, 'method_not_allowed', `Method ${method} is not allowed for ${path}; use ${allowed.join(' or ')}`, null, {
        Allow: allowed.join(', '),
      });
    }
    return gatewayError(404, 'not_found', `No route for ${method} ${path}`);
  });
  app.onError((err, c) => {
    ctx.logger.error({ path: c.req.path, err: err.message }, 'unhandled error in request handler');
    return gatewayError(500, 'internal_error', err.message);
  });
  return app;
}

/** The --health-check-port listener's app: /liveness, /readiness and /health only. */
export function buildProbeApp(ctx: GatewayContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  registerHealthRoutes(app, ctx);
  app.notFound((c) => c.body(null, 404));
  return app;
}

/** The Prometheus listener's app: GET /metrics and nothing else. */
export function buildMetricsApp(ctx: GatewayContext): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => c.body(await ctx.metrics.render(), 200, { 'Content-Type': ctx.metrics.contentType }));
  app.notFound((c) => c.body(null, 404));
  return app;
}
