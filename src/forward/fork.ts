/**
 * Where the request path forks (ARCHITECTURE.md "Beyond one host"): a request for a model served
 * by ZMQ workers goes through api/<protocol> and the pipeline; one for a model served by HTTP
 * workers goes to the forwarder as it came. With no HTTP worker registered nothing here runs
 * beyond one registry scan, so the single-host path keeps its cost.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InferenceEndpoint } from '../api/types.js';
import type { CancelSignal } from '../pipeline/cancel-signal.js';
import type { WorkerManager } from '../workers/manager.js';
import type { RoutingHints } from '../workers/policies/index.js';
import type { Worker } from '../workers/worker.js';
import type { Forwarder } from './forwarder.js';
import { routingText, routingTokens } from './routing-text.js';

export interface ForkInput {
  endpoint: InferenceEndpoint;
  request: Request;
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  requestId: string;
  signal: CancelSignal;
  hints?: RoutingHints;
}

/** Either the forwarder's response, or the request (body re-attached) for the pipeline. */
export type ForkResult =
  | { kind: 'forwarded'; response: Response }
  /** `pinned`: the ZMQ worker the policy already chose (the pipeline must not pick again). */
  | { kind: 'pipeline'; request: Request; pinned?: Worker };

async function readBody(input: ForkInput): Promise<Buffer> {
  const inc = input.incoming;
  // Straight from the socket when nothing upstream of the route read it (a Content-Length body:
  // see middleware/body-limit.ts), with Node's own headers: touching `request.headers` or
  // `request.url` makes the Node adapter build a whole web Request. A chunked body was already
  // read through the web Request.
  if (inc && !inc.readableDidRead && inc.headers['content-length'] !== undefined && inc.headers['transfer-encoding'] === undefined) {
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      inc.on('data', (c: Buffer) => chunks.push(c));
      inc.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      inc.once('error', reject);
    });
  }
  return Buffer.from(await input.request.arrayBuffer());
}

function parse(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function forkRequest(input: ForkInput, workers: WorkerManager, forwarder: Forwarder): Promise<ForkResult> {
  if (!workers.hasHttpWorkers()) return { kind: 'pipeline', request: input.request };
  const body = await readBody(input);
  const json = parse(body);
  const asked = json !== null && typeof json.model === 'string' ? json.model : null;
  const canonical = asked === null ? null : workers.resolveModel(asked);
  const all = workers.list();
  const zmqServes = all.some((w) => !w.isHttp && (canonical === null || w.modelId === canonical));
  const httpServes = all.some((w) => w.isHttp && (canonical === null || w.modelId === canonical));
  const anyZmq = all.some((w) => !w.isHttp);

  const tokens = json !== null && (workers.config.policy === 'cache_aware' || workers.config.policy === 'prefix_hash')
    ? routingTokens(routingText(json))
    : [];
  let toHttp: boolean;
  let first: Worker | null = null;
  let pinned: Worker | undefined;
  if (canonical !== null && httpServes && zmqServes) {
    // Both kinds serve the model: the policy chooses once among all its ready workers (a second
    // pick by the pipeline would advance round_robin twice per request and always land alike).
    first = workers.pickWorker(canonical, tokens, undefined, input.hints, () => true);
    toHttp = first !== null && first.isHttp;
    if (!toHttp) {
      pinned = first ?? undefined;
      first = null;
    }
  } else if (canonical !== null) {
    toHttp = httpServes;
  } else {
    // No model, or one nobody registered: an HTTP-only gateway lets the upstream answer it.
    toHttp = !anyZmq || (asked === null && !zmqServes);
  }
  if (!toHttp) {
    const request = new Request(input.request.url, { method: input.request.method, headers: input.request.headers, body: new Uint8Array(body) });
    return { kind: 'pipeline', request, pinned };
  }
  let path = input.incoming?.url;
  if (path === undefined) {
    const url = new URL(input.request.url);
    path = `${url.pathname}${url.search}`;
  }
  const response = await forwarder.forward({
    endpoint: input.endpoint,
    path,
    method: input.incoming?.method ?? input.request.method,
    rawHeaders: input.incoming?.rawHeaders ?? headerPairs(input.request.headers),
    body,
    requestId: input.requestId,
    model: canonical,
    routingTokens: tokens,
    hints: input.hints,
    first,
    outgoing: input.outgoing,
    signal: input.signal,
  });
  return { kind: 'forwarded', response };
}

function headerPairs(h: Headers): string[] {
  const out: string[] = [];
  h.forEach((v, k) => out.push(k, v));
  return out;
}
