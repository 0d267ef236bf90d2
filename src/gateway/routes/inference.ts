/**
 * Inference routes are placeholders over the protocol seam (ApiDeps.inference): the route only
 * packages the request; the pipeline does everything else. Without a handler → 501.
 */
import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import { gatewayError } from '../errors.js';
import { closeSignal } from '../close-signal.js';
import { rawResponse } from '../raw-response.js';
import type { AppEnv } from '../middleware/env.js';
import { shareRequestRecord } from '../../api/request-record.js';
import { INFERENCE_PATHS, type InferenceEndpoint, type InferenceCall, type InferenceHandler, type InferenceRequest, type RawResponse } from '../../api/types.js';
import { runWithTrace, startRequestTrace } from '../../tracing/request-trace.js';
import { forkRequest } from '../../forward/fork.js';
import type { PipelineServices } from '../../pipeline/services.js';
import type { Worker } from '../../workers/worker.js';
import { HINTED_POLICIES } from '../../workers/policies/index.js';

export function registerInferenceRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  for (const endpoint of Object.keys(INFERENCE_PATHS) as InferenceEndpoint[]) {
    const serve = inferenceServer(ctx, endpoint);
    // Not async, nor is `serve` without HTTP workers: the handler's promise is returned as it is
    // (an async function returning a promise adds a resolve job and two ticks per request).
    app.post(INFERENCE_PATHS[endpoint], (c) => serve(c.req.raw, c.env, c.get('requestId')));
  }
}

/**
 * The route's body for a request the direct front (gateway/direct-front.ts) serves from Node: it
 * has checked that no HTTP worker would take it and that tracing is off, so this is `serveHere`
 * with the shared services. Null for an endpoint without a handler (the app answers its 501).
 */
export function directInferenceServer(
  ctx: GatewayContext,
  endpoint: InferenceEndpoint,
): ((request: InferenceRequest, outgoing: ServerResponse, requestId: string) => Promise<Response>) | null {
  const handler = (ctx.deps.inference ?? {})[endpoint];
  if (!handler) return null;
  // ctx.services: what servicesFor gives when the policy reads no routing headers (the front is off otherwise).
  return (request, outgoing, requestId) => callHandler(ctx, handler, request, rawResponse(outgoing), requestId, closeSignal(outgoing), ctx.services);
}

/** Whether anything reads a request's record: the access log (middleware/access-log.ts) is its only reader. */
export function recordsRequests(ctx: GatewayContext): boolean {
  return !ctx.config.disableAccessLog && ctx.logger.isLevelEnabled('info');
}

/** The pipeline handler's call, the same from the app's route and from the direct front. */
function callHandler(
  ctx: GatewayContext,
  handler: InferenceHandler,
  request: InferenceRequest,
  raw: RawResponse | undefined,
  requestId: string,
  signal: InferenceCall['signal'],
  services: PipelineServices,
): Promise<Response> {
  return handler({ request, raw, requestId, signal, services, history: ctx.history, recorded: recordsRequests(ctx) });
}

/** Serves one request of an inference endpoint: the route's body. */
export type InferenceServer = (request: Request, env: Partial<HttpBindings> | undefined, requestId: string) => Promise<Response>;

export function inferenceServer(ctx: GatewayContext, endpoint: InferenceEndpoint): InferenceServer {
  const handler = (ctx.deps.inference ?? {})[endpoint];
  const path = INFERENCE_PATHS[endpoint];
  // Only the hashing and sticky policies read routing headers (reading them builds web Headers).
  const hinted = HINTED_POLICIES.has(ctx.config.policy);
  // Every endpoint exists: HTTP workers serve it by forwarding even without a pipeline handler.
  return (request, env, requestId) => {
    const outgoing = env?.outgoing;
    // Node: a light close signal; under app.request() the web Request's own.
    const signal = outgoing ? closeSignal(outgoing) : request.signal;
    const raw = outgoing ? rawResponse(outgoing) : undefined;
    const serve = (): Promise<Response> => (ctx.workers.hasHttpWorkers() ? serveForked() : serveHere(request, undefined));
    const serveHere = (req: Request, pinned: Worker | undefined): Promise<Response> => {
      if (!handler) {
        return Promise.resolve(gatewayError(501, 'not_implemented', `${path} is not available: no request pipeline is configured`));
      }
      const services = ctx.servicesFor(req.headers);
      return callHandler(ctx, handler, req, raw, requestId, signal, pinned ? pinnedServices(services, pinned) : services);
    };
    const serveForked = async (): Promise<Response> => {
      const fork = await forkRequest(
        { endpoint, request, incoming: env?.incoming, outgoing, requestId, signal, hints: hinted ? ctx.hintsFor(request.headers) : undefined },
        ctx.workers,
        ctx.forwarder,
      );
      // The upstream gets this gateway's span as its parent (forward/headers.ts).
      if (fork.kind === 'forwarded') return fork.response;
      shareRequestRecord(request, fork.request);
      return serveHere(fork.request, fork.pinned);
    };
    // Null unless --otlp-traces-endpoint / --enable-trace: then the request is served as always.
    const trace = startRequestTrace(request.headers, { 'http.request.method': 'POST', 'url.path': path, 'smg.request_id': requestId });
    if (!trace) return serve();
    return (async () => {
      try {
        const res = await runWithTrace(trace, serve);
        // A stream written to the socket has its status there (its Response is only a marker).
        trace.release(raw && res === raw.sent ? outgoing?.statusCode : res.status);
        return res;
      } catch (err) {
        trace.fail(err instanceof Error ? err.message : String(err));
        trace.release(500);
        throw err;
      }
    })();
  };
}

/** The pipeline's first pick is the worker the fork already chose; later picks (reroutes) choose anew. */
function pinnedServices(services: PipelineServices, worker: Worker): PipelineServices {
  let used = false;
  const pool = services.workers;
  return {
    ...services,
    workers: {
      ...pool,
      pickWorker: (model, tokenIds, needs, exclude) => {
        if (!used && exclude === undefined) {
          used = true;
          return worker;
        }
        return pool.pickWorker(model, tokenIds, needs, exclude);
      },
    },
  };
}
