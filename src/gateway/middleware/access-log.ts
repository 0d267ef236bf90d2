/**
 * The access log: one `info` line per request once its response has ended (a stream's last byte),
 * e.g.
 *
 *   INFO  POST /v1/messages 200 1843ms request_id=msg_… worker=ipc://… prompt_tokens=21186 completion_tokens=96
 *   INFO  POST /v1/responses 400 4ms request_id=resp-… error_code=invalid_value error="tools[4].type: …"
 *
 * with the error's code and message for 4xx/5xx (read from the answer's JSON envelope, OpenAI's or
 * Anthropic's), the worker and token counts the handler recorded (api/request-record.ts), and its
 * notes (hosted tools dropped, …). `--log-requests` adds the request body, cut to `--max-log-len`
 * characters as vLLM's `--enable-log-requests` / `--max-log-len` cut the prompt. Probe paths,
 * polled every few seconds by orchestrators, log at debug. `--disable-access-log` turns it off.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { peekRequestRecord } from '../../api/request-record.js';
import type { Logger } from '../../util/logger.js';
import { onBodyDone } from '../body-done.js';
import { onResponseClosed } from '../raw-response.js';
import type { AppEnv } from './env.js';

export interface AccessLogOptions {
  logRequests: boolean;
  /** Characters of a logged body kept; null = all. */
  maxLogLen: number | null;
}

const PROBES = new Set(['/liveness', '/readiness', '/health', '/health_generate']);

/** An error answer's code and message, from either protocol's envelope. */
async function errorOf(res: Response): Promise<{ code?: string; message?: string }> {
  const header = res.headers.get('X-SMG-Error-Code') ?? undefined;
  if (!(res.headers.get('content-type') ?? '').includes('json')) return { code: header };
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown; type?: unknown; message?: unknown } };
    const e = body.error;
    const code = typeof e?.code === 'string' ? e.code : (header ?? (typeof e?.type === 'string' ? e.type : undefined));
    return { code, message: typeof e?.message === 'string' ? e.message : undefined };
  } catch {
    return { code: header };
  }
}

/** Up to `max` characters of the request body (read from a clone; the handler reads the original). */
async function bodyText(req: Request, max: number | null): Promise<string | undefined> {
  if (!req.body) return undefined;
  const reader = req.clone().body?.getReader();
  if (!reader) return undefined;
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (max === null || text.length <= max) text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
  } catch {
    // the client left mid-body: log what arrived
  }
  if (max !== null && text.length > max) return `${text.slice(0, max)}… [${total} bytes]`;
  return text;
}

/** What one access line reports, known once the request is answered. */
export interface AccessLine {
  method: string;
  path: string;
  requestId: string;
  /** The request the handler got (its record names the worker and token counts). */
  request: object;
  /** performance.now() when the request came in. */
  start: number;
  /** --log-requests: the body text, read from a clone. */
  body?: Promise<string | undefined>;
}

/**
 * The line's writer for an answered request: call it once the response is over. Shared with the
 * direct front of the inference routes (gateway/direct-front.ts).
 */
export function accessLineWriter(logger: Logger, line: AccessLine, res: Response): () => void {
  const status = res.status;
  const error = status >= 400 ? errorOf(res) : undefined;
  const write = async () => {
    const fields: Record<string, unknown> = { request_id: line.requestId };
    const rec = peekRequestRecord(line.request);
    if (rec?.worker) fields.worker = rec.worker;
    if (rec?.promptTokens !== undefined) fields.prompt_tokens = rec.promptTokens;
    if (rec?.completionTokens !== undefined) fields.completion_tokens = rec.completionTokens;
    if (error) {
      const e = await error;
      if (e.code) fields.error_code = e.code;
      if (e.message) fields.error = e.message;
    }
    if (rec && rec.notes.length > 0) fields.notes = rec.notes.join('; ');
    if (line.body) fields.body = await line.body;
    const text = `${line.method} ${line.path} ${status} ${Math.round(performance.now() - line.start)}ms`;
    if (PROBES.has(line.path)) logger.debug(fields, text);
    else logger.info(fields, text);
  };
  return () => {
    write().catch((err: unknown) => logger.warn({ err: String(err) }, 'access log line failed'));
  };
}

export function accessLog(logger: Logger, opts: AccessLogOptions): MiddlewareHandler<AppEnv> {
  const logged = async (c: Context<AppEnv>, next: Next) => {
    const start = performance.now();
    const body = opts.logRequests && c.req.method !== 'GET' ? bodyText(c.req.raw, opts.maxLogLen) : undefined;
    // Swallow here so a body that never arrives cannot reject unobserved; awaited at the end.
    body?.catch(() => undefined);
    await next();
    const res = c.res;
    const done = accessLineWriter(logger, { method: c.req.method, path: c.req.path, requestId: c.get('requestId'), request: c.req.raw, start, body }, res);
    const outgoing = c.env?.outgoing;
    if (outgoing) onResponseClosed(outgoing, done);
    else c.res = onBodyDone(res, done);
  };
  // Below `info` no line can be written (probes log at debug, which implies info): no clock,
  // listener, closure or promise of this layer per request for nothing.
  return (c, next) => (logger.isLevelEnabled('info') ? logged(c, next) : next());
}
