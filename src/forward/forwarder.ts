/**
 * The HTTP-worker half of the request path: the request as it came goes to a worker picked by the
 * routing policy among the model's ready HTTP workers whose breaker admits traffic; the worker's
 * status, headers and bytes come back unchanged. An attempt that fails before anything reached
 * the client (connection refused or reset, a retryable status, or the upstream dying between its
 * head and its first body byte) is retried on another worker with SMG's backoff; once a byte has
 * been relayed the response is committed. A client that leaves aborts the upstream request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { InferenceEndpoint } from '../api/types.js';
import { openaiErrorJson as gatewayError } from '../api/openai/errors.js';
import type { CancelSignal } from '../pipeline/cancel-signal.js';
import type { Logger } from '../util/logger.js';
import type { WorkerManager } from '../workers/manager.js';
import type { RoutingHints } from '../workers/policies/index.js';
import type { Worker } from '../workers/worker.js';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { backoffMs, breakerOutcome, RETRYABLE_STATUSES, type RetryConfig } from './retry.js';
import { frameBoundary, streamTailError } from './stream-tail.js';
import { markForwarded } from './forwarded-mark.js';
import { sendUpstream, UpstreamError, type Attempt } from './upstream.js';

export interface RetryMetricsSink {
  retry(endpoint: string): void;
  retriesExhausted(endpoint: string): void;
  retryBackoff(attempt: number, seconds: number): void;
}

export interface ForwarderDeps {
  workers: WorkerManager;
  retry: RetryConfig;
  logger: Logger;
  requestTimeoutMs: number;
  metrics?: RetryMetricsSink;
  random?: () => number;
}

export interface ForwardRequest {
  endpoint: InferenceEndpoint;
  /** Path and query as the client sent them. */
  path: string;
  method: string;
  /** Node's rawHeaders of the client request. */
  rawHeaders: readonly string[];
  body: Buffer;
  requestId: string;
  /** Canonical model the workers must serve; null = any HTTP worker. */
  model: string | null;
  /** What cache_aware matches prefixes on (the request text as code points). */
  routingTokens: readonly number[];
  hints?: RoutingHints;
  /** A worker the fork already picked for the first attempt. */
  first?: Worker | null;
  /** The Node response (absent under app.request()). */
  outgoing?: ServerResponse;
  signal: CancelSignal;
}

/** SMG's endpoint label values (metrics_labels::ENDPOINT_*). */
const ENDPOINT_LABEL: Record<InferenceEndpoint, string> = {
  chat_completions: 'chat',
  completions: 'completions',
  messages: 'messages',
  messages_count_tokens: 'messages',
  responses: 'responses',
  generate: 'generate',
  tokenize: 'tokenize',
  detokenize: 'detokenize',
};

type AttemptResult =
  | { kind: 'committed'; response: Response }
  | { kind: 'retry'; status: number; body: Buffer | null; headers: Record<string, string | string[]> | null; error: string };

export class Forwarder {
  constructor(private readonly deps: ForwarderDeps) {}

  async forward(req: ForwardRequest): Promise<Response> {
    const { workers, retry } = this.deps;
    const label = ENDPOINT_LABEL[req.endpoint];
    const failed = new Set<string>();
    let last: Extract<AttemptResult, { kind: 'retry' }> | null = null;
    for (let attempt = 0; attempt < retry.maxRetries; attempt++) {
      if (req.signal.aborted) return gatewayError(499, 'client_closed', 'client closed the request');
      const worker = attempt === 0 && req.first ? req.first : this.pick(req, failed);
      if (!worker) break;
      worker.breaker?.admit();
      const result = await this.attempt(req, worker);
      if (result.kind === 'committed') return result.response;
      failed.add(worker.id);
      last = result;
      if (attempt + 1 >= retry.maxRetries || req.signal.aborted) break;
      const delay = backoffMs(retry, attempt, this.deps.random);
      this.deps.metrics?.retry(label);
      this.deps.metrics?.retryBackoff(attempt + 1, delay / 1000);
      this.deps.logger.debug({ worker: worker.url, attempt: attempt + 1, delayMs: delay }, `retrying ${req.path} after: ${result.error}`);
      await new Promise((r) => setTimeout(r, delay));
    }
    if (last === null) return this.noWorker(req);
    if (RETRYABLE_STATUSES.has(last.status) || last.body === null) this.deps.metrics?.retriesExhausted(label);
    // The last upstream answer as it was (status and error body kept), else the transport error.
    if (last.body !== null && last.headers !== null) {
      return markForwarded(new Response(new Uint8Array(last.body), { status: last.status, headers: toHeaders(last.headers) }));
    }
    return gatewayError(last.status, last.status === 504 ? 'upstream_timeout' : 'upstream_unreachable', last.error);
  }

  /** Ready HTTP workers of the model with an admitting breaker, those that failed this request last. */
  private pick(req: ForwardRequest, failed: ReadonlySet<string>): Worker | null {
    const usable = (w: Worker) => w.isHttp && (w.breaker?.available ?? true);
    const fresh = this.deps.workers.pickWorker(req.model, req.routingTokens, undefined, req.hints, (w) => usable(w) && !failed.has(w.id));
    return fresh ?? (failed.size > 0 ? this.deps.workers.pickWorker(req.model, req.routingTokens, undefined, req.hints, usable) : null);
  }

  private noWorker(req: ForwardRequest): Response {
    const model = req.model;
    const ready = this.deps.workers.list().filter((w) => w.isHttp && w.isReady && (model === null || w.modelId === model));
    if (ready.length > 0) {
      return gatewayError(503, 'no_available_workers', 'All workers are unavailable (circuit breaker open or unhealthy)');
    }
    const scope = model === null ? 'any model' : `model ${model}`;
    const why = model === null ? 'no HTTP worker is ready' : this.deps.workers.unavailableReason(model);
    return gatewayError(503, 'no_available_workers', `No ready worker for ${scope}: ${why}`);
  }

  private async attempt(req: ForwardRequest, worker: Worker): Promise<AttemptResult> {
    const release = worker.trackRequest();
    const url = new URL(req.path, `${worker.url.replace(/\/+$/, '')}/`);
    const send = (): Attempt =>
      sendUpstream({
        url,
        method: req.method,
        headers: upstreamRequestHeaders(req.rawHeaders, req.body.length, req.requestId, worker.identity.spec.apiKey),
        body: req.body,
        idleTimeoutMs: this.deps.requestTimeoutMs,
      });
    let call: Attempt;
    try {
      call = send();
    } catch (err) {
      release();
      worker.breaker?.record(false);
      return { kind: 'retry', status: 502, body: null, headers: null, error: (err as Error).message };
    }
    const onClientGone = () => call.request.destroy();
    req.signal.addEventListener('abort', onClientGone);
    let upstream: IncomingMessage;
    try {
      try {
        upstream = await call.response;
      } catch (err) {
        // A kept-alive socket the worker closed meanwhile (it restarted, or timed the socket out)
        // says nothing about the worker: send once more on a fresh connection (SMG's
        // send_with_stale_conn_retry), without a breaker sample or a retry attempt.
        if (!(err instanceof UpstreamError && err.staleSocket) || req.signal.aborted) throw err;
        call = send();
        upstream = await call.response;
      }
    } catch (err) {
      req.signal.removeEventListener('abort', onClientGone);
      release();
      if (req.signal.aborted) {
        worker.breaker?.abandon();
      } else {
        worker.breaker?.record(false);
        this.deps.workers.probeSoon(worker);
      }
      const e = err as UpstreamError;
      return { kind: 'retry', status: e.status ?? 502, body: null, headers: null, error: e.message };
    }
    const status = upstream.statusCode ?? 502;
    const headers = clientResponseHeaders(upstream.rawHeaders);
    if (RETRYABLE_STATUSES.has(status)) {
      // Kept whole: if no later attempt succeeds this is what the client gets (status and body).
      const body = await readAll(upstream).catch(() => Buffer.alloc(0));
      req.signal.removeEventListener('abort', onClientGone);
      release();
      const outcome = breakerOutcome(status);
      if (outcome === 'none') worker.breaker?.abandon();
      else worker.breaker?.record(outcome === 'success');
      return { kind: 'retry', status, body, headers, error: `upstream ${worker.url} answered ${status}` };
    }
    return this.relay(req, worker, upstream, status, headers, release, onClientGone);
  }

  /**
   * Relays the upstream response. The head waits for the first body byte, so an upstream that
   * dies between its head and its body is still retried; after that, failures end the stream.
   */
  private relay(
    req: ForwardRequest,
    worker: Worker,
    upstream: IncomingMessage,
    status: number,
    headers: Record<string, string | string[]>,
    release: () => void,
    onClientGone: () => void,
  ): Promise<AttemptResult> {
    const out = req.outgoing;
    if (!out) {
      // app.request(): a web stream over the same bytes (no retry after the head).
      req.signal.removeEventListener('abort', onClientGone);
      upstream.once('close', () => {
        release();
        worker.breaker?.record(upstream.complete);
      });
      const body = Readable.toWeb(upstream) as unknown as ReadableStream<Uint8Array>;
      return Promise.resolve({ kind: 'committed', response: markForwarded(new Response(body, { status, headers: toHeaders(headers) })) });
    }
    const isSse = String(headers['content-type'] ?? '').includes('text/event-stream');
    return new Promise<AttemptResult>((resolve) => {
      let committed = false;
      let tail = '';
      let settled = false;
      const finish = (ok: boolean | null) => {
        if (settled) return;
        settled = true;
        req.signal.removeEventListener('abort', onClientGone);
        release();
        if (ok === null) worker.breaker?.abandon();
        else worker.breaker?.record(ok);
      };
      const commit = () => {
        committed = true;
        out.writeHead(status, headers);
        resolve({ kind: 'committed', response: RESPONSE_ALREADY_SENT });
      };
      upstream.on('data', (chunk: Buffer) => {
        if (!committed) commit();
        if (isSse) tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 2))).slice(-2);
        if (!out.write(chunk)) {
          upstream.pause();
          out.once('drain', () => upstream.resume());
        }
      });
      upstream.once('end', () => {
        if (!committed) commit();
        out.end();
        finish(true);
      });
      upstream.once('close', () => {
        if (upstream.complete || settled) return;
        if (req.signal.aborted) {
          finish(null);
          // Nobody is left to answer, but the request must still end (in-flight counts, drain).
          if (!committed) resolve({ kind: 'committed', response: gatewayError(499, 'client_closed', 'client closed the request') });
          return;
        }
        const message = `upstream ${worker.url} closed the response before it was complete`;
        finish(false);
        this.deps.workers.probeSoon(worker);
        if (!committed) {
          resolve({ kind: 'retry', status: 502, body: null, headers: null, error: message });
          return;
        }
        this.deps.logger.warn({ worker: worker.url, path: req.path }, message);
        if (isSse && !out.destroyed) out.end(frameBoundary(tail) + streamTailError(req.endpoint, message));
        else out.destroy();
      });
    });
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('close', () => (stream.complete ? undefined : reject(new Error('upstream closed'))));
  });
}

function toHeaders(h: Record<string, string | string[]>): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) {
    if (k === 'content-length') continue;
    for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
  }
  return out;
}
