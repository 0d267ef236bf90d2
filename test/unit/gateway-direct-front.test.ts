/**
 * The direct front of the inference routes (src/gateway/direct-front.ts) against the Hono app it
 * stands in for: the same request sent to `path` (the front) and to `path?via=app` (a query
 * string sends it to the app, whose router serves the same route) must answer alike — status,
 * headers, body, access line and metrics — for successes, handler errors, plain refusals that get
 * the API's envelope, a thrown error, a stream written to the socket, and the Anthropic paths.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestRecord } from '../../src/api/request-record.js';
import type { InferenceCall } from '../../src/api/types.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { directFront } from '../../src/gateway/direct-front.js';
import { NodeRequest } from '../../src/gateway/node-request.js';
import { startGateway, type GatewayHandle } from '../../src/gateway/server.js';
import { captureLogger, type CapturedLogger } from '../support/log-capture.js';

/** One fake handler for every endpoint: what it answers is named by the body's `case`. */
/** Request id → whether the direct front served it (its handler got the Node-backed request). */
const viaFront = new Map<string, boolean>();

async function handler(call: InferenceCall): Promise<Response> {
  viaFront.set(call.requestId, call.request instanceof NodeRequest);
  // 'late…': the body is read once it has all arrived (as after a wait for the request's turn).
  if (call.requestId.includes('late')) await new Promise((r) => setTimeout(r, 30));
  const text = await call.request.text();
  const body = JSON.parse(text) as { case: string; pad?: string };
  if (body.case === 'late') return Response.json({ chars: text.length, pad: body.pad?.length ?? 0 }, { headers: { 'x-request-id': call.requestId } });
  const rec = requestRecord(call.request);
  rec.worker = 'w-1';
  rec.promptTokens = 7;
  switch (body.case) {
    case 'json':
      return Response.json({ ok: true, id: call.requestId }, { headers: { 'x-request-id': call.requestId } });
    case 'stream': {
      const raw = call.raw!;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': call.requestId });
      raw.write(Buffer.from('data: one\n\n'));
      raw.end('data: [DONE]\n\n');
      return raw.sent;
    }
    case 'invalid':
      return Response.json({ error: { message: 'bad field', type: 'invalid_request_error', param: 'x', code: 'invalid_value' } }, { status: 400 });
    case 'plain':
      return new Response('nope, not here', { status: 422, headers: { 'X-SMG-Error-Code': 'custom_code' } });
    case 'throw':
      throw new Error('handler blew up');
    default:
      return new Response(null, { status: 204 });
  }
}

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let gw: GatewayHandle;
let cap: CapturedLogger;
let base: string;

beforeAll(async () => {
  cap = captureLogger('info');
  gw = await startGateway(
    { ...defaultGatewayConfig(), host: '127.0.0.1', port: 0, prometheusHost: '127.0.0.1', prometheusPort: 0, drainSettleSecs: 0, shutdownGracePeriodSecs: 2 },
    { logger: cap.logger, defaultMetrics: false, deps: { inference: { chat_completions: handler, messages: handler, generate: handler } } },
  );
  base = `http://127.0.0.1:${gw.port}`;
});

afterAll(async () => {
  await gw.close();
});

async function send(path: string, body: string, headers: Record<string, string> = {}): Promise<Seen> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  const h: Record<string, string> = {};
  for (const [k, v] of res.headers) if (k !== 'date') h[k] = v;
  return { status: res.status, headers: h, body: text };
}

/** The access line of a request id, once its response is over (it is written at the close). */
async function accessLine(id: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const l = cap.find(`request_id=${id}`);
    if (l.length > 0) return l[0];
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no access line for ${id}`);
}

async function metrics(): Promise<string> {
  return (await fetch(`http://127.0.0.1:${gw.metricsPort}/metrics`)).text();
}

const series = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .join('\n');

describe('direct front of the inference routes', () => {
  const cases: [string, string][] = [
    ['/v1/chat/completions', 'json'],
    ['/v1/chat/completions', 'stream'],
    ['/v1/chat/completions', 'invalid'],
    ['/v1/chat/completions', 'plain'],
    ['/v1/chat/completions', 'throw'],
    ['/v1/messages', 'plain'],
    ['/v1/messages', 'throw'],
    ['/v1/messages', 'json'],
    ['/generate', 'plain'],
    ['/v1/completions', 'json'],
    ['/v1/chat/completions', 'late'],
  ];
  for (const [path, name] of cases) {
    it(`${path} ${name}: the same answer, access line and counts as the app's`, async () => {
      const body = JSON.stringify({ case: name });
      const front = await send(path, body, { 'x-request-id': `f-${name}` });
      const app = await send(`${path}?via=app`, body, { 'x-request-id': `a-${name}` });
      expect(front.headers['x-request-id']).toBe(`f-${name}`);
      expect(app.headers['x-request-id']).toBe(`a-${name}`);
      expect([viaFront.get(`f-${name}`), viaFront.get(`a-${name}`)]).toEqual([true, false]);
      const strip = (s: Seen, id: string) => ({ ...s, body: s.body.replaceAll(id, 'ID'), headers: { ...s.headers, 'x-request-id': 'ID' } });
      expect(strip(front, `f-${name}`)).toEqual(strip(app, `a-${name}`));
      const [lf, la] = [await accessLine(`f-${name}`), await accessLine(`a-${name}`)];
      const norm = (l: string, id: string) => l.replace(/ \d+ms/, ' Nms').replace(id, 'ID').replace(/^.*?(POST)/, '$1');
      expect(norm(lf, `f-${name}`)).toBe(norm(la, `a-${name}`));
    });
  }

  it('reads a body that arrived whole before the handler asked, in one piece or many, BOM and all', async () => {
    const pad = 'é'.repeat(150_000);
    const body = JSON.stringify({ case: 'late', pad });
    const front = await send('/v1/chat/completions', body, { 'x-request-id': 'late-big-f' });
    const app = await send('/v1/chat/completions?via=app', body, { 'x-request-id': 'late-big-a' });
    expect(viaFront.get('late-big-f')).toBe(true);
    expect(JSON.parse(front.body)).toEqual({ chars: body.length, pad: pad.length });
    expect(JSON.parse(front.body)).toEqual(JSON.parse(app.body));
    // A leading BOM is dropped, as Request.text() drops it.
    const bom = await send('/v1/chat/completions', `\ufeff${JSON.stringify({ case: 'late' })}`, { 'x-request-id': 'late-bom-f' });
    expect(JSON.parse(bom.body)).toEqual({ chars: JSON.stringify({ case: 'late' }).length, pad: 0 });
  });

  it('generates ids with the endpoint prefix, and counts both paths in the same series', async () => {
    const before = await metrics();
    const a = await send('/v1/chat/completions', JSON.stringify({ case: 'json' }));
    const b = await send('/v1/messages', JSON.stringify({ case: 'json' }));
    expect(a.headers['x-request-id']).toMatch(/^chatcmpl-[A-Za-z0-9]{24}$/);
    expect(b.headers['x-request-id']).toMatch(/^msg_[A-Za-z0-9]{24}$/);
    // A client id with surrounding blanks is trimmed, as the app reads it.
    const c = await send('/v1/chat/completions', JSON.stringify({ case: 'json' }), { 'x-correlation-id': '  corr-1 ' });
    expect(c.headers['x-request-id']).toBe('corr-1');
    await accessLine('corr-1');
    const after = await metrics();
    const count = (text: string) => Number(/smg_http_requests_total\{method="POST",path="\/v1\/chat\/completions"\} (\d+)/.exec(text)?.[1] ?? 0);
    expect(count(after) - count(before)).toBe(2);
    expect(series(after, 'smg_http_responses_total')).toContain('path="/v1/chat/completions",status_code="422",error_code="custom_code"');
    expect(series(after, 'smg_http_responses_total')).toContain('path="/v1/messages",status_code="500",error_code="internal_error"');
    expect(cap.find('unhandled error in request handler').length).toBeGreaterThanOrEqual(4);
    // Every request is over: nothing left in flight.
    expect(gw.ctx.lifecycle.inFlight).toBe(0);
  });

  it('stands in front of the app only where no auth, cap, CORS or --log-requests layer is configured', () => {
    const app = () => undefined;
    expect(directFront(gw.ctx, app)).not.toBeNull();
    const with_ = (over: Partial<GatewayConfig>) => directFront({ ...gw.ctx, config: { ...gw.ctx.config, ...over } }, app);
    expect(with_({ apiKey: 'k' })).toBeNull();
    expect(with_({ maxConcurrentRequests: 4 })).toBeNull();
    expect(with_({ logRequests: true })).toBeNull();
    expect(with_({ corsAllowedOrigins: ['https://a.example'] })).toBeNull();
    expect(with_({ policy: 'consistent_hashing' })).toBeNull();
  });

  it('takes a Host the adapter takes, and leaves one it refuses to the app (400)', async () => {
    const raw = (host: string) =>
      new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
        const body = JSON.stringify({ case: 'json' });
        const req = httpRequest(
          { host: '127.0.0.1', port: gw.port, path: '/v1/chat/completions', method: 'POST', headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, id: res.headers['x-request-id'] as string | undefined }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const upper = await raw(`LOCALHOST:${gw.port}`);
    expect(upper.status).toBe(200);
    expect(viaFront.get(upper.id!)).toBe(true);
    const high = await raw('127.0.0.1:61234');
    expect(high.status).toBe(200);
    expect(viaFront.get(high.id!)).toBe(true);
    const before = viaFront.size;
    expect((await raw('bad host!')).status).toBe(400);
    expect(viaFront.size).toBe(before);
  });

  it('leaves a body over the limit, a chunked body and a wrong method to the app', async () => {
    const big = await send('/v1/chat/completions', JSON.stringify({ case: 'json', pad: 'x'.repeat(gw.ctx.config.maxBodyBytes) }));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe('request_too_large');
    const chunked = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(ctrl) {
          ctrl.enqueue(new TextEncoder().encode(JSON.stringify({ case: 'json' })));
          ctrl.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(200);
    expect(chunked.headers.get('x-request-id')).toMatch(/^chatcmpl-/);
    const get = await fetch(`${base}/v1/chat/completions`);
    expect(get.status).toBe(405);
  });
});
