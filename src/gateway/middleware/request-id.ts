/**
 * Request ids (request-pipeline §2.1): the first of the usual headers, else a generated id whose
 * prefix names the endpoint. Echoed as `x-request-id`.
 */
import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

const HEADERS = ['x-request-id', 'x-correlation-id', 'x-trace-id', 'request-id'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function prefixFor(path: string): string {
  if (path.endsWith('/chat/completions')) return 'chatcmpl-';
  if (path.endsWith('/completions')) return 'cmpl-';
  if (path.endsWith('/generate')) return 'gnt-';
  if (path.endsWith('/responses')) return 'resp-';
  if (path.endsWith('/messages')) return 'msg_';
  return 'req-';
}

/**
 * Random bytes are drawn from the CSPRNG a pool at a time: `randomInt` per character cost 24 calls
 * into crypto per request. A byte maps to a character only below 248 (4 × 62), so every character
 * stays equally likely, as with randomInt (rejection sampling, not a biased `% 62` of 256).
 */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');

function randomCharCode(): number {
  for (;;) {
    if (poolAt === POOL.length) {
      randomFillSync(POOL);
      poolAt = 0;
    }
    const b = POOL[poolAt++];
    if (b < UNBIASED_BELOW) return ALPHABET_CODES[b % ALPHABET.length];
  }
}

/** The id's 24 characters, written here and read as one string (24 appends left 24 string pieces to collect). */
const ID_CHARS = Buffer.alloc(24);

export function generateRequestId(path: string): string {
  for (let i = 0; i < 24; i++) ID_CHARS[i] = randomCharCode();
  return prefixFor(path) + ID_CHARS.toString('latin1', 0, 24);
}

const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;

/**
 * The client's id from Node's parsed headers, as `c.req.header(h)` reads it through
 * @hono/node-server (the first of HEADERS that is set and not blank, trimmed of HTTP whitespace).
 * For the direct front of the inference routes (gateway/direct-front.ts).
 */
export function requestIdFromNode(headers: IncomingHttpHeaders): string | undefined {
  for (const h of HEADERS) {
    const v = headers[h];
    if (typeof v !== 'string' || v.length === 0) continue;
    let start = 0;
    let end = v.length;
    while (start < end && isHttpWhitespace(v.charCodeAt(start))) start++;
    while (end > start && isHttpWhitespace(v.charCodeAt(end - 1))) end--;
    if (end > start) return start === 0 && end === v.length ? v : v.slice(start, end);
  }
  return undefined;
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let id: string | undefined;
    for (const h of HEADERS) {
      const v = c.req.header(h);
      if (v) {
        id = v;
        break;
      }
    }
    id ??= generateRequestId(c.req.path);
    c.set('requestId', id);
    await next();
    // A response written straight to the socket (a stream, a forwarded answer) carried the id in
    // its own head; its Response is node-server's shared "already sent" marker, sent to no one.
    if (c.res === RESPONSE_ALREADY_SENT) return;
    try {
      c.res.headers.set('x-request-id', id);
    } catch {
      // A handler may return a Response with immutable headers (e.g. one passed through from fetch).
      const copy = new Response(c.res.body, c.res);
      copy.headers.set('x-request-id', id);
      c.res = undefined;
      c.res = copy;
    }
  };
}
