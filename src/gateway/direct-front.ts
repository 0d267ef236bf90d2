/**
 * The inference routes' POSTs served straight from node:http, without @hono/node-server's web
 * Request/Response handling and without Hono's dispatch, Context and composed layers. Issue 30's
 * short request (C=64) spent ~12 % of the gateway's CPU there: a route served with none of it
 * measured 0.87× the CPU per request of a front that still went through the adapter (pair-ab).
 *
 * The layers' work itself is kept and done here in the order the app runs it, from the same code:
 * accounting (middleware/http-metrics.ts), the access line (middleware/access-log.ts), the request
 * id, the intake checks, the route (routes/inference.ts), the API's error envelope, the id header
 * and the 500 of an unhandled error (app.ts); a Response the handler returns (an error, a JSON
 * answer) is written by @hono/node-server's own writer. Whatever this front would not do exactly
 * as the app does goes to the app, untouched: any other path or method, a query string, a Host the
 * adapter would check the long way, a draining gateway, a body without Content-Length or over the
 * limit, a body the budget refuses, HTTP workers, tracing, and every request while auth, the
 * concurrency cap, CORS, --log-requests or a header-reading routing policy is configured.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { asAnthropicError } from '../api/anthropic/errors.js';
import { asOpenAiError } from '../api/openai/errors.js';
import { INFERENCE_PATHS, type InferenceEndpoint, type InferenceRequest } from '../api/types.js';
import { isForwarded } from '../forward/forwarded-mark.js';
import { activeTracer } from '../tracing/tracer.js';
import { fairTurn } from '../util/fair-turn.js';
import { HINTED_POLICIES } from '../workers/policies/index.js';
import type { GatewayContext } from './context.js';
import { gatewayError } from './errors.js';
import { accessLineWriter } from './middleware/access-log.js';
import { sharedBodyBudget } from './middleware/body-budget.js';
import { corsPolicyOf } from './middleware/cors-policy.js';
import { httpAccountingOf } from './middleware/http-metrics.js';
import { generateRequestId, requestIdFromNode } from './middleware/request-id.js';
import { NodeRequest } from './node-request.js';
import { onResponseClosed } from './raw-response.js';
import { directInferenceServer, recordsRequests } from './routes/inference.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

interface Route {
  path: string;
  /** Anthropic clients read failures in Anthropic's envelope; every other path in OpenAI's. */
  anthropic: boolean;
  serve: (request: InferenceRequest, outgoing: ServerResponse, requestId: string) => Promise<Response>;
}

const ANTHROPIC: ReadonlySet<InferenceEndpoint> = new Set(['messages', 'messages_count_tokens']);

/** @hono/node-server's check of a Host it takes as it is (anything else it parses as a URL first). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * Whether @hono/node-server accepts the Host of a request for one of these exact paths: a plain one
 * as it is; any other (upper case, a port from 60000, …) if a URL parses it to the same host name
 * (else the adapter answers 400 "Invalid host header", which the app path keeps).
 */
function adapterTakesHost(host: string): boolean {
  if (PLAIN_HOST.test(host)) return true;
  try {
    const name = new URL(`http://${host}/`).hostname;
    return name.length === host.length || name === (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
  } catch {
    return false;
  }
}

/** Requests this front handed back to the app after their turn (util/fair-turn.ts) was taken. */
const turnTaken = new WeakSet<IncomingMessage>();

/** Whether the front already took this request's turn (the app's fetch then does not wait again). */
export function tookTurn(incoming: IncomingMessage): boolean {
  return turnTaken.has(incoming);
}

/**
 * The main listener's request listener: the direct front before `app` (the adapter's listener of
 * the app), or null when the config needs the app's layers for every request.
 */
export function directFront(ctx: GatewayContext, app: NodeListener): NodeListener | null {
  const cfg = ctx.config;
  if (cfg.apiKey !== null || cfg.maxConcurrentRequests >= 1 || corsPolicyOf(cfg) !== null || HINTED_POLICIES.has(cfg.policy)) return null;
  if (!cfg.disableAccessLog && cfg.logRequests) return null;
  const routes = new Map<string, Route>();
  for (const endpoint of Object.keys(INFERENCE_PATHS) as InferenceEndpoint[]) {
    const serve = directInferenceServer(ctx, endpoint);
    const path = INFERENCE_PATHS[endpoint];
    if (serve) routes.set(path, { path, anthropic: ANTHROPIC.has(endpoint), serve });
  }
  if (routes.size === 0) return null;
  const budget = sharedBodyBudget(ctx, cfg.maxBodyBytes);
  const accounting = httpAccountingOf(ctx);
  const log = ctx.logger;
  // A Response the handler returns is written by the adapter itself, as the app's would be.
  const pending = new WeakMap<IncomingMessage, Response>();
  const write = getRequestListener((_req, env) => pending.get((env as HttpBindings).incoming)!);

  /** The 500 app.onError answers for an error a handler threw. */
  const unhandled = (path: string, err: Error): Response => {
    log.error({ path, err: err.message }, 'unhandled error in request handler');
    return gatewayError(500, 'internal_error', err.message);
  };

  const serve = (route: Route, incoming: IncomingMessage, outgoing: ServerResponse, charge: number): void => {
    const start = performance.now();
    const done = accounting.begin();
    const requestId = requestIdFromNode(incoming.headers) ?? generateRequestId(route.path);
    const request = new NodeRequest(incoming);
    let answer: Promise<Response>;
    try {
      answer = route.serve(request, outgoing, requestId);
    } catch (err) {
      answer = Promise.reject(err);
    }
    if (charge > 0) answer = budget.hold(charge, answer);
    // The request-id, access-log and accounting layers on the way out, innermost first.
    const settle = (res: Response): void => {
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
      if (recordsRequests(ctx)) {
        onResponseClosed(outgoing, accessLineWriter(log, { method: 'POST', path: route.path, requestId, request, start }, res));
      }
      accounting.answered('POST', route.path, start, res);
      onResponseClosed(outgoing, done);
      if (res === RESPONSE_ALREADY_SENT) return;
      pending.set(incoming, res);
      void write(incoming, outgoing);
    };
    const answered = (res: Response): void | Promise<void> => {
      if (res.status < 400 || isForwarded(res)) return settle(res);
      const shaped = route.anthropic ? asAnthropicError(res, requestId) : asOpenAiError(res);
      return shaped.then(settle, (err: unknown) => {
        if (!(err instanceof Error)) throw err;
        settle(unhandled(route.path, err));
      });
    };
    answer
      .then(answered, (err: unknown) => {
        // Hono's compose hands only Errors to onError; anything else went past every layer, to the
        // adapter's bare 500.
        if (!(err instanceof Error)) throw err;
        return answered(unhandled(route.path, err));
      })
      .catch((err: unknown) => {
        done();
        if (!outgoing.headersSent) outgoing.writeHead(500).end();
        else outgoing.destroy();
      });
  };

  /** After the request's turn: what the app would refuse or route elsewhere goes to the app. */
  const admit = (route: Route, incoming: IncomingMessage, outgoing: ServerResponse, length: string): void => {
    const charge = budget.chargeOf(length, false);
    if (ctx.lifecycle.draining || (charge > 0 && !budget.fits(charge)) || ctx.workers.hasHttpWorkers() || activeTracer() !== null) {
      turnTaken.add(incoming);
      app(incoming, outgoing);
      return;
    }
    serve(route, incoming, outgoing, charge);
  };

  return (incoming, outgoing) => {
    // The exact path (the app's router would match these with nothing else in the URL either).
    const route = incoming.method === 'POST' && incoming.url !== undefined ? routes.get(incoming.url) : undefined;
    const headers = incoming.headers;
    const length = headers['content-length'];
    const host = headers.host;
    if (
      route === undefined ||
      host === undefined ||
      !adapterTakesHost(host) ||
      length === undefined ||
      headers['transfer-encoding'] !== undefined ||
      // The streaming body limit and the 413 are the app's.
      Number.parseInt(length, 10) > cfg.maxBodyBytes
    ) {
      app(incoming, outgoing);
      return;
    }
    // A burst of arrivals is spread over event-loop turns, as the app's requests are.
    const wait = fairTurn();
    if (wait) void wait.then(() => admit(route, incoming, outgoing, length));
    else admit(route, incoming, outgoing, length);
  };
}
