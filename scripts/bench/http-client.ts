/**
 * The HTTP side (gateway and http-ceiling targets): streaming chat completions over node:http with
 * a keep-alive agent and a minimal SSE scanner. Deliberately lighter than fetch/openai (no WHATWG
 * streams, no JSON.parse per chunk) because the client shares two cores with the gateway and the
 * engine.
 *
 * A frame carrying `content":"` is a token event (isTokenFrame: `"content"` or
 * `"reasoning_content"` with a string value). The usage chunk is parsed for completion_tokens; an
 * `"error"` frame fails the request.
 */
import http from 'node:http';
import { ArrivalTracker } from './arrivals.js';
import type { RequestFn, RequestResult } from './phase.js';
import { isTokenFrame } from './sse-frames.js';

/** A request body, whole or in parts (sent one after another, nothing copied). */
export type RequestBody = Buffer | readonly Buffer[];

/** The bytes of request `seq`'s body in one buffer (for reading it, not for sending). */
export function bodyBytes(body: Buffer | ((seq: number) => RequestBody), seq = 0): Buffer {
  const b = typeof body === 'function' ? body(seq) : body;
  return Buffer.isBuffer(b) ? b : Buffer.concat(b);
}

export interface HttpTarget {
  host: string;
  port: number;
  /** Serialized request body: the same for every request, or one per request number (in parts, written in turn). */
  body: Buffer | ((seq: number) => RequestBody);
  timeoutMs: number;
  /** Default /v1/chat/completions (the http-ceiling takes `?mode=burst` on it). */
  path?: string;
}

export function createAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096, scheduling: 'fifo' });
}

export function httpRequestFn(t: HttpTarget, agent: http.Agent): RequestFn {
  const fixed = typeof t.body === 'function' ? null : t.body;
  const bodyFor = typeof t.body === 'function' ? t.body : () => fixed!;
  const headersFor = (body: RequestBody) => ({
    'content-type': 'application/json',
    'content-length': String(Buffer.isBuffer(body) ? body.length : body.reduce((n, b) => n + b.length, 0)),
    accept: 'text/event-stream',
  });
  const fixedHeaders = fixed ? headersFor(fixed) : null;
  const path = t.path ?? '/v1/chat/completions';
  return (seq, rec) =>
    new Promise<RequestResult>((resolve) => {
      const body = bodyFor(seq);
      const headers = fixedHeaders ?? headersFor(body);
      const start = performance.now();
      let first = -1;
      let head = -1;
      const itl = new ArrivalTracker(rec);
      let events = 0;
      let usageTokens = -1;
      let done = false;
      let settled = false;
      const finish = (r: Omit<RequestResult, 'ttftMs' | 'e2eMs' | 'events' | 'arrivals'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        itl.flush();
        const end = performance.now();
        resolve({
          ...r,
          events,
          arrivals: itl.arrivals,
          ttftMs: first < 0 ? Number.NaN : first - start,
          headMs: head < 0 ? Number.NaN : head - start,
          e2eMs: end - start,
        });
      };
      const req = http.request(
        { host: t.host, port: t.port, path, method: 'POST', agent, headers },
        (res) => {
          head = performance.now();
          res.setEncoding('utf8');
          if (res.statusCode !== 200) {
            let text = '';
            res.on('data', (d: string) => (text += d));
            res.on('end', () => finish({ ok: false, tokens: 0, error: `HTTP ${res.statusCode}: ${text.slice(0, 300)}` }));
            return;
          }
          let buf = '';
          let error: string | null = null;
          res.on('data', (chunk: string) => {
            const now = performance.now();
            buf += chunk;
            let from = 0;
            for (;;) {
              const sep = buf.indexOf('\n\n', from);
              if (sep < 0) break;
              const frame = buf.slice(from, sep);
              from = sep + 2;
              if (!frame.startsWith('data: ')) continue;
              if (frame.length === 12 && frame === 'data: [DONE]') {
                done = true;
                continue;
              }
              if (isTokenFrame(frame)) {
                if (first < 0) {
                  first = now;
                  rec.onFirstToken?.();
                }
                itl.add(now, 1);
                events += 1;
              } else if (frame.includes('"usage":')) {
                try {
                  const u = (JSON.parse(frame.slice(6)) as { usage?: { completion_tokens?: number } }).usage;
                  if (typeof u?.completion_tokens === 'number') usageTokens = u.completion_tokens;
                } catch {
                  error = `unparseable usage frame: ${frame.slice(0, 200)}`;
                }
              } else if (frame.startsWith('data: {"error"')) {
                error = frame.slice(6, 400);
              }
            }
            buf = from === 0 ? buf : buf.slice(from);
          });
          res.on('end', () => {
            if (error) finish({ ok: false, tokens: 0, error });
            else if (!done) finish({ ok: false, tokens: 0, error: 'stream ended without [DONE]' });
            else finish({ ok: true, tokens: usageTokens >= 0 ? usageTokens : events });
          });
          res.on('error', (err) => finish({ ok: false, tokens: 0, error: `response: ${err.message}` }));
          // After 'end' this is a no-op; before it, the connection died mid-stream.
          res.on('close', () => finish({ ok: false, tokens: 0, error: 'connection closed mid-stream' }));
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new Error(`request timed out after ${t.timeoutMs} ms`));
      }, t.timeoutMs);
      req.on('error', (err) => finish({ ok: false, tokens: 0, error: `request: ${err.message}` }));
      if (Buffer.isBuffer(body)) {
        req.end(body);
      } else {
        for (let i = 0; i < body.length - 1; i++) req.write(body[i]);
        req.end(body[body.length - 1]);
      }
    });
}

/** One non-streaming request: the prompt token count the gateway computed (sanity check). */
export async function gatewayPromptTokens(base: string, body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: false, stream_options: undefined, max_tokens: 1 }),
    signal: AbortSignal.timeout(30_000),
  });
  const json = (await res.json()) as { usage?: { prompt_tokens?: number }; error?: unknown };
  if (!res.ok || typeof json.usage?.prompt_tokens !== 'number') {
    throw new Error(`probe request failed: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  }
  return json.usage.prompt_tokens;
}
