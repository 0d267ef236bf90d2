/**
 * The inference routes' POSTs served without Hono's per-request machinery. Profiling the short
 * request (issue 30) put Hono's dispatch, its Context and request wrapper, the composed layers'
 * frames and closures at ~5 % of the gateway's CPU, plus the garbage they leave; a route served
 * with no layer at all measured 0.84× the CPU per request (pair-ab, interleaved).
 *
 * The layers' work itself is kept and done here in the order Hono ran it, from the same code:
 * accounting (middleware/http-metrics.ts), the access line (middleware/access-log.ts), the request
 * id, the intake checks, the route (routes/inference.ts), the API's error envelope, the id header
 * and the 500 of an unhandled error (app.ts). Whatever this front does not do exactly as the app
 * would goes to the app itself, untouched: any other path or method, a query string, a draining
 * gateway, a body without Content-Length or over the limit, a body the budget refuses, and every
 * request while auth, the concurrency cap, CORS or --log-requests is configured.
 */
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Hono } from 'hono';
import { asAnthropicError } from '../api/anthropic/errors.js';
import { asOpenAiError } from '../api/openai/errors.js';
import { INFERENCE_PATHS, type InferenceEndpoint } from '../api/types.js';
import { isForwarded } from '../forward/forwarded-mark.js';
import type { GatewayContext } from './context.js';
import { gatewayError } from './errors.js';
import { accessLineWriter } from './middleware/access-log.js';
import { sharedBodyBudget } from './middleware/body-budget.js';
import { corsPolicyOf } from './middleware/cors-policy.js';
import type { AppEnv } from './middleware/env.js';
import { httpAccountingOf } from './middleware/http-metrics.js';
import { generateRequestId, requestIdFromNode } from './middleware/request-id.js';
import { onResponseClosed } from './raw-response.js';
import { inferenceServer, type InferenceServer } from './routes/inference.js';

export type FetchFn = (req: Request, env: HttpBindings) => Response | Promise<Response>;

interface Route {
  path: string;
  /** Anthropic clients read failures in Anthropic's envelope; every other path in OpenAI's. */
  anthropic: boolean;
  serve: InferenceServer;
}

const ANTHROPIC: ReadonlySet<InferenceEndpoint> = new Set(['messages', 'messages_count_tokens']);

/** The main listener's fetch: the direct front before `app`, or null when the config needs the app's layers. */
export function directFront(ctx: GatewayContext, app: Hono<AppEnv>): FetchFn | null {
  const cfg = ctx.config;
  if (cfg.apiKey !== null || cfg.maxConcurrentRequests >= 1 || corsPolicyOf(cfg) !== null) return null;
  if (!cfg.disableAccessLog && cfg.logRequests) return null;
  const routes = new Map<string, Route>();
  for (const endpoint of Object.keys(INFERENCE_PATHS) as InferenceEndpoint[]) {
    const path = INFERENCE_PATHS[endpoint];
    routes.set(path, { path, anthropic: ANTHROPIC.has(endpoint), serve: inferenceServer(ctx, endpoint) });
  }
  const budget = sharedBodyBudget(ctx, cfg.maxBodyBytes);
  const accounting = httpAccountingOf(ctx);
  const log = ctx.logger;
  const accessLog = !cfg.disableAccessLog;

  /** The 500 app.onError answers for an error a handler threw. */
  const unhandled = (path: string, err: Error): Response => {
    log.error({ path, err: err.message }, 'unhandled error in request handler');
    return gatewayError(500, 'internal_error', err.message);
  };

  return (req, env) => {
    const incoming = env.incoming;
    // The exact path (Hono's router would match these with nothing else in the URL either).
    const route = incoming.method === 'POST' && incoming.url !== undefined ? routes.get(incoming.url) : undefined;
    if (route === undefined || ctx.lifecycle.draining) return app.fetch(req, env);
    const headers = incoming.headers;
    const length = headers['content-length'];
    // The streaming body limit, the 413 and the budget's 503 are the app's.
    if (length === undefined || headers['transfer-encoding'] !== undefined || Number.parseInt(length, 10) > cfg.maxBodyBytes) {
      return app.fetch(req, env);
    }
    const charge = budget.chargeOf(length, false);
    if (charge > 0 && !budget.fits(charge)) return app.fetch(req, env);

    const start = performance.now();
    const done = accounting.begin();
    const requestId = requestIdFromNode(headers) ?? generateRequestId(route.path);
    let answer: Promise<Response>;
    try {
      answer = route.serve(req, env, requestId);
    } catch (err) {
      answer = Promise.reject(err);
    }
    if (charge > 0) answer = budget.hold(charge, answer);
    const answered = (res: Response): Response | Promise<Response> => {
      if (res.status < 400 || isForwarded(res)) return settle(res);
      const shaped = route.anthropic ? asAnthropicError(res, requestId) : asOpenAiError(res);
      return shaped.then(settle, (err: unknown) => {
        if (!(err instanceof Error)) throw err;
        return settle(unhandled(route.path, err));
      });
    };
    // The request-id, access-log and accounting layers on the way out, innermost first.
    const settle = (res: Response): Response => {
      if (res !== RESPONSE_ALREADY_SENT) {
        try {
          res.headers.set('x-request-id', requestId);
        } catch {
          // A handler may return a Response with immutable headers (e.g. one passed through from fetch).
          const copy = new Response(res.body, res);
          copy.headers.set('x-request-id', requestId);
          res = copy;
        }
      }
      const outgoing = env.outgoing;
      if (accessLog && log.isLevelEnabled('info')) {
        onResponseClosed(outgoing, accessLineWriter(log, { method: 'POST', path: route.path, requestId, request: req, start }, res));
      }
      accounting.answered('POST', route.path, start, res);
      onResponseClosed(outgoing, done);
      return res;
    };
    return answer.then(answered, (err: unknown) => {
      // Hono's compose hands only Errors to onError; anything else went past every layer.
      if (!(err instanceof Error)) {
        done();
        throw err;
      }
      return answered(unhandled(route.path, err));
    });
  };
}
