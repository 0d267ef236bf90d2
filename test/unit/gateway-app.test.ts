import { describe, expect, it } from 'vitest';
import { buildApp, buildMetricsApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { createCountTokensHandler, createMessagesHandler } from '../../src/api/anthropic/handler.js';
import type { ApiDeps as RouteDeps } from '../../src/api/types.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-app/engine-a';
const URL_B = 'ipc:///tmp/smg-app/engine-b';

function setup(over: Partial<GatewayConfig> = {}, deps?: RouteDeps) {
  const cap = captureLogger();
  const fake = new FakeConnector();
  const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm', ...over }, { logger: cap.logger, connect: fake.connect, deps });
  return { ctx, app: buildApp(ctx), metricsApp: buildMetricsApp(ctx), fake, cap };
}

async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('probes', () => {
  it('/liveness and /health are always 200 OK', async () => {
    const { app } = setup();
    for (const p of ['/liveness', '/health']) {
      const res = await app.request(p);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('OK');
    }
  });

  it('/readiness: insufficient workers → tokenizer gate → ready → draining', async () => {
    const { app, ctx, fake } = setup();
    const r1 = await app.request('/readiness');
    expect(r1.status).toBe(503);
    expect(await r1.json()).toEqual({ status: 'not ready', reason: 'insufficient healthy workers', workers: [] });

    ctx.workers.addStartupWorkers([URL_A, URL_B], 'vllm', null);
    await waitFor(() => fake.pending.length === 2);
    expect((await app.request('/readiness')).status).toBe(503);
    fake.pendingFor(URL_A)!.complete();
    await waitFor(() => ctx.workers.list()[0].isReady);
    const r2 = await app.request('/readiness');
    expect(r2.status).toBe(503);
    expect(await r2.json()).toMatchObject({ status: 'not ready', reason: 'tokenizer not yet registered' });

    ctx.tokenizers.register('m', { fake: true });
    const r3 = await app.request('/readiness');
    expect(r3.status).toBe(200);
    expect(await r3.json()).toEqual({ status: 'ready', healthy_workers: 1, total_workers: 2 });

    ctx.lifecycle.startDraining();
    const r4 = await app.request('/readiness');
    expect(r4.status).toBe(503);
    expect(await r4.json()).toEqual({ status: 'not ready', reason: 'draining' });
    // Probes still answer while draining; everything else is refused.
    expect((await app.request('/liveness')).status).toBe(200);
    const refused = await app.request('/workers');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('x-smg-error-code')).toBe('server_draining');
  });

  it('a tokenizer loader from RouteDeps fills the registry when the first worker registers', async () => {
    const loads: string[] = [];
    const { app, ctx, fake } = setup({ tokenizerPath: '/tok' }, {
      loadTokenizer: async (src) => {
        loads.push(`${src.modelId}<-${src.source}`);
        return { tok: true };
      },
    });
    fake.auto = true;
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await waitFor(() => ctx.tokenizers.has('m') && ctx.workers.list()[0]?.isReady === true);
    expect(loads).toEqual(['m<-/tok']);
    expect((await app.request('/readiness')).status).toBe(200);
  });

  it('the ZMQ router answers 501 for the SGLang info routes', async () => {
    const { app } = setup();
    const res = await app.request('/get_server_info');
    expect(res.status).toBe(501);
    expect(await res.text()).toBe('Server info not implemented');
  });
});

describe('routes', () => {
  it('/v1/models lists registered model ids (pending included), 503 when none', async () => {
    const { app, ctx } = setup();
    const none = await app.request('/v1/models');
    expect(none.status).toBe(503);
    expect(await none.json()).toEqual({
      error: { message: 'No models available', type: 'service_unavailable_error', param: null, code: 'service_unavailable' },
    });
    const before = Math.floor(Date.now() / 1000);
    ctx.workers.addStartupWorkers([URL_A, URL_B], 'vllm', null);
    await ctx.workers.settled();
    const res = await app.request('/v1/models');
    const body = (await res.json()) as { object: string; data: Record<string, unknown>[] };
    expect(body.object).toBe('list');
    // Pending workers: no engine has reported max_model_len yet, and no tokenizer config is loaded.
    expect(body.data).toEqual([{ id: 'm', object: 'model', created: expect.any(Number), owned_by: 'self_hosted', root: 'm', parent: null, max_model_len: null }]);
    expect(body.data[0].created).toBeGreaterThanOrEqual(before);
    expect(body.data[0].created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('unknown routes are a JSON 404 in the gateway envelope', async () => {
    const { app } = setup();
    for (const [method, path] of [['GET', '/nope'], ['POST', '/v1/nope'], ['DELETE', '/workers/a/b']]) {
      const res = await app.request(path, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-smg-error-code')).toBe('not_found');
      expect(await res.json()).toEqual({ error: { message: `No route for ${method} ${path}`, type: 'not_found_error', param: null, code: 'not_found' } });
    }
  });

  it('a known path with the wrong method is a JSON 405 naming the allowed methods', async () => {
    const { app } = setup();
    const res = await app.request('/v1/chat/completions');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({
      error: { message: 'Method GET is not allowed for /v1/chat/completions; use POST', type: 'invalid_request_error', param: null, code: 'method_not_allowed' },
    });
    const worker = await app.request('/workers/0b6f8a3e-1111-4222-8333-444455556666', { method: 'POST' });
    expect(worker.status).toBe(405);
    expect(worker.headers.get('allow')).toBe('GET, PATCH, PUT, DELETE');
    expect((await app.request('/liveness', { method: 'POST' })).status).toBe(405);
  });

  it('bodies above the cap are refused with a JSON 413', async () => {
    const { app } = setup({ maxBodyBytes: 1024 });
    for (const path of ['/workers', '/v1/chat/completions']) {
      const res = await app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(4096) });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        error: { message: 'Failed to buffer the request body: length limit exceeded', type: 'invalid_request_error', param: null, code: 'request_too_large' },
      });
    }
  });

  it('a Content-Length above the cap is refused before any byte is read; one within it passes', async () => {
    const { app } = setup({ maxBodyBytes: 1024 });
    const big = await app.request('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '4096' }, body: 'x'.repeat(4096) });
    expect(big.status).toBe(413);
    expect(big.headers.get('x-smg-error-code')).toBe('request_too_large');
    const small = await app.request('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '2' }, body: '{}' });
    expect(small.status).toBe(501);
  });

  it('inference routes answer 501 until a pipeline is plugged in', async () => {
    const { app } = setup();
    const res = await app.request('/v1/chat/completions', { method: 'POST', body: '{}' });
    expect(res.status).toBe(501);
    expect(res.headers.get('x-smg-error-code')).toBe('not_implemented');
    const body = (await res.json()) as { error: { type: string; code: string; param: null } };
    expect(body.error).toMatchObject({ type: 'not_implemented_error', code: 'not_implemented', param: null });
    // Every inference path is routed (HTTP workers serve it by forwarding even without a pipeline).
    expect((await app.request('/v1/messages', { method: 'POST', body: '{}' })).status).toBe(501);
  });

  it('RouteDeps handlers get the raw request, a request id and the worker pool', async () => {
    const { app, ctx, fake } = setup({}, {
      inference: {
        chat_completions: async (call) => {
          const body = JSON.parse(await call.request.text()) as { model: string };
          const w = call.services.workers.pickWorker(body.model, [1, 2, 3]);
          if (!w) return Response.json({ none: true }, { status: 404 });
          const done = w.trackRequest();
          done();
          return Response.json({ id: call.requestId, worker: w.url, client: w.acquireClient().url });
        },
      },
    });
    fake.auto = true;
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await waitFor(() => ctx.workers.list()[0]?.isReady === true);
    const res = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-request-id': 'abc' },
      body: JSON.stringify({ model: 'm' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('abc');
    expect(await res.json()).toEqual({ id: 'abc', worker: URL_A, client: URL_A });
    const gen = await app.request('/v1/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'zzz' }) });
    expect(gen.status).toBe(404);
    expect(gen.headers.get('x-request-id')).toMatch(/^chatcmpl-[A-Za-z0-9]{24}$/);
  });
});

describe('--api-key', () => {
  it('guards /v1/* and the worker API with a Bearer key; probes stay open', async () => {
    const { app } = setup({ apiKey: 'sekret' });
    const noKey = await app.request('/workers');
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-smg-error-code')).toBe('invalid_api_key');
    expect(await noKey.json()).toEqual({
      error: {
        message: 'Missing or invalid API key: send it as `Authorization: Bearer <key>` or `x-api-key: <key>`',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect((await app.request('/workers', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await app.request('/v1/models')).status).toBe(401);
    expect((await app.request('/workers', { headers: { Authorization: 'Bearer sekret' } })).status).toBe(200);
    expect((await app.request('/liveness')).status).toBe(200);
    expect((await app.request('/readiness')).status).toBe(503);
  });

  it('x-api-key (Anthropic clients) authenticates exactly like Authorization: Bearer', async () => {
    const { app } = setup({ apiKey: 'sekret' });
    expect((await app.request('/workers', { headers: { 'x-api-key': 'sekret' } })).status).toBe(200);
    expect((await app.request('/workers', { headers: { 'x-api-key': ' sekret ' } })).status).toBe(200);
    expect((await app.request('/workers', { headers: { 'x-api-key': 'wrong' } })).status).toBe(401);
    expect((await app.request('/workers', { headers: { 'x-api-key': '' } })).status).toBe(401);
    // Either header matching is enough.
    expect((await app.request('/workers', { headers: { Authorization: 'Bearer wrong', 'x-api-key': 'sekret' } })).status).toBe(200);
    expect((await app.request('/workers', { headers: { Authorization: 'Bearer sekret', 'x-api-key': 'wrong' } })).status).toBe(200);
  });
});

describe('Anthropic paths', () => {
  const deps: RouteDeps = { inference: { messages: createMessagesHandler(), messages_count_tokens: createCountTokensHandler() } };
  const body = JSON.stringify({ model: 'zzz', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] });
  const post = (path: string, headers: Record<string, string> = {}, payload = body) =>
    ({ method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } }) as RequestInit;

  it("the gateway's refusals on /v1/messages come in Anthropic's envelope; elsewhere in the OpenAI one", async () => {
    const { app } = setup({ apiKey: 'sekret', maxBodyBytes: 1024 }, deps);
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      const res = await app.request(path, post(path));
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const json = (await res.json()) as Record<string, unknown>;
      expect(json).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      expect(json.request_id).toBe(res.headers.get('x-request-id'));
    }
    const chat = (await (await app.request('/v1/chat/completions', post('/v1/chat/completions'))).json()) as { error: { type: string } };
    expect(chat.error.type).toBe('authentication_error');

    const big = await app.request('/v1/messages', post('/v1/messages', { 'x-api-key': 'sekret' }, JSON.stringify({ pad: 'x'.repeat(4096) })));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });

    const unknown = await app.request('/v1/messages', post('/v1/messages', { 'x-api-key': 'sekret' }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toMatch(/^msg_[A-Za-z0-9]{24}$/);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: "No worker available for model 'zzz'" } });

    const bad = await app.request('/v1/messages', post('/v1/messages', { 'x-api-key': 'sekret' }, '{"model":'));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('an unexpected failure inside the handler is a 500 api_error', async () => {
    const { app, cap } = setup({}, { inference: { messages: async () => { throw new Error('kaboom'); } } });
    const res = await app.request('/v1/messages', post('/v1/messages'));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'kaboom' } });
    expect(cap.find('unhandled error in request handler')).toHaveLength(1);
  });

  it('while draining, /v1/messages answers 503 overloaded_error', async () => {
    const { app, ctx } = setup({}, deps);
    ctx.lifecycle.startDraining();
    const res = await app.request('/v1/messages', post('/v1/messages'));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Server is shutting down and accepts no new requests' } });
  });
});

describe('concurrency cap', () => {
  it('holds the permit until the body ends; queue full → 429', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { app } = setup({ maxConcurrentRequests: 1, queueSize: 0 }, {
      inference: {
        completions: async () =>
          new Response(
            new ReadableStream({
              async start(ctrl) {
                ctrl.enqueue(new TextEncoder().encode('data: 1\n\n'));
                await gate;
                ctrl.close();
              },
            }),
          ),
      },
    });
    const first = await app.request('/v1/completions', { method: 'POST', body: '{}' });
    expect(first.status).toBe(200);
    const second = await app.request('/v1/completions', { method: 'POST', body: '{}' });
    expect(second.status).toBe(429);
    release();
    await first.text();
    const third = await app.request('/v1/completions', { method: 'POST', body: '{}' });
    expect(third.status).toBe(200);
    release();
    await third.text();
  });
});

describe('metrics app', () => {
  it('serves only GET /metrics with worker series labelled connection_mode="zmq"', async () => {
    const { app, ctx, metricsApp, fake } = setup();
    fake.auto = true;
    ctx.workers.addStartupWorkers([URL_A], 'tokenspeed', 2);
    await waitFor(() => ctx.workers.list()[0]?.isReady === true);
    fake.clients[0].rankStates = [{ rank: 0, inFlight: 1, load: { numRunning: 4, numWaiting: 2, kvCacheUsage: 0.5 } }];
    await app.request('/liveness');
    const res = await metricsApp.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('smg_worker_pool_size{worker_type="regular",connection_mode="zmq",model="m",runtime="tokenspeed"} 1');
    expect(text).toContain(`smg_worker_health{worker="${URL_A}",connection_mode="zmq",runtime="tokenspeed"} 1`);
    expect(text).toContain(`smg_engine_running_requests{worker="${URL_A}",rank="0",connection_mode="zmq",runtime="tokenspeed"} 4`);
    expect(text).toContain(`smg_engine_inflight_requests{worker="${URL_A}",rank="0",connection_mode="zmq",runtime="tokenspeed"} 1`);
    expect(text).toContain('smg_http_requests_total{method="GET",path="/liveness"} 1');
    expect((await metricsApp.request('/other')).status).toBe(404);

    const id = ctx.workers.list()[0].id;
    ctx.workers.submitRemove(id);
    await waitFor(() => ctx.workers.list().length === 0);
    const after = await (await metricsApp.request('/metrics')).text();
    expect(after).toContain(`smg_worker_health{worker="${URL_A}",connection_mode="zmq",runtime="tokenspeed"} -1`);
  });
});
