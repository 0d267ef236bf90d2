/**
 * HTTP workers through the gateway app (app.request, no listener) over real upstream sockets:
 * registration with the model from the upstream's /v1/models, pass-through of path, headers and
 * body, every routing policy on HTTP workers, retries before the first byte with the upstream's
 * last status and body kept, the circuit breaker's open → half-open → closed cycle, and a client
 * disconnect reaching the upstream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { captureLogger } from '../support/log-capture.js';

const ups: FakeUpstream[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const u of ups.splice(0)) await u.stop();
});

async function upstreams(n: number, model = 'up-model'): Promise<FakeUpstream[]> {
  const out = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const u = new FakeUpstream(`u${i}`, model);
    await u.start();
    return u;
  }));
  ups.push(...out);
  return out;
}

async function until(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function gateway(urls: string[], over: Partial<GatewayConfig> = {}) {
  const cap = captureLogger();
  const ctx = createGatewayContext(
    { ...defaultGatewayConfig(), healthCheckIntervalSecs: 1, retryInitialBackoffMs: 1, retryJitterFactor: 0, ...over },
    { logger: cap.logger, connect: new FakeConnector().connect, random: () => 0.42 },
  );
  closers.push(() => ctx.workers.close());
  const app = buildApp(ctx);
  ctx.workers.addStartupWorkers(urls, null, null);
  await until(() => ctx.workers.list().length === urls.length && ctx.workers.list().every((w) => w.isReady));
  const chat = (content: string, headers: Record<string, string> = {}, model = 'up-model') =>
    app.request('/v1/chat/completions?trace=1', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
    });
  const servedBy = async (res: Response) => ((await res.json()) as { served_by: string }).served_by;
  return { ctx, app, cap, chat, servedBy };
}

describe('HTTP workers: registration and pass-through', () => {
  it('registers with the upstream model and forwards path, query, headers and body as they came', async () => {
    const [u] = await upstreams(1);
    const { app, ctx, chat } = await gateway([u.url], { modelPath: null });
    expect(ctx.workers.list()[0].modelId).toBe('up-model');
    const models = (await (await app.request('/v1/models')).json()) as { data: Array<Record<string, unknown>> };
    expect(models.data).toEqual([
      { id: 'up-model', object: 'model', created: 1700000000, owned_by: 'self_hosted', root: '/models/up-model', parent: null, max_model_len: 2048 },
    ]);
    const res = await chat('hi', { 'x-custom': 'kept', authorization: 'Bearer user-key', 'x-request-id': 'rid-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-upstream')).toBe('u0');
    const seen = u.seen.at(-1)!;
    expect(seen.path).toBe('/v1/chat/completions?trace=1');
    expect(seen.headers['x-custom']).toBe('kept');
    expect(seen.headers.authorization).toBe('Bearer user-key');
    expect(seen.headers['x-request-id']).toBe('rid-1');
    expect(JSON.parse(seen.body)).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }] });
    const view = (await (await app.request('/workers')).json()) as { workers: Array<Record<string, unknown>> };
    expect(view.workers[0]).toMatchObject({ url: u.url, connection_mode: 'http', status: 'ready', circuit_breaker: { state: 'closed' } });
  });

  it("PATCH and PUT keep the model the upstream reported (never the gateway's --model-path)", async () => {
    const [u] = await upstreams(1);
    const { app, ctx } = await gateway([u.url], { modelPath: 'local-model' });
    const w = ctx.workers.list()[0];
    const json = (method: string, body: unknown) =>
      app.request(`/workers/${w.id}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await json('PATCH', { labels: { zone: 'a' } })).status).toBe(202);
    await ctx.workers.settled();
    expect(w.modelId).toBe('up-model');
    expect((await json('PUT', { url: u.url, priority: 60 })).status).toBe(202);
    await ctx.workers.settled();
    expect(ctx.workers.list()[0].modelId).toBe('up-model');
    expect(ctx.workers.list()[0].status).toBe('ready');
  });

  it('with health checks off an HTTP worker is ready once its models are read, whatever /health says', async () => {
    const [u] = await upstreams(1);
    u.healthStatus = 500;
    const { servedBy, chat } = await gateway([u.url], { disableHealthCheck: true });
    expect(await servedBy(await chat('hi'))).toBe('u0');
  });

  it('keeps the upstream status and error body of a non-retryable answer', async () => {
    const [u] = await upstreams(1);
    const { chat } = await gateway([u.url]);
    u.mode = { kind: 'status', status: 400 };
    const res = await chat('bad');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'u0 says 400', type: 'upstream_error', code: 400 } });
    expect(u.seen).toHaveLength(1);
  });

  it('passes an event stream through byte for byte', async () => {
    const [u] = await upstreams(1);
    const { chat } = await gateway([u.url]);
    const frames = ['data: {"a":1}\n\n', 'data: {"b":"é"}\n\n', 'data: [DONE]\n\n'];
    u.mode = { kind: 'sse', frames };
    const res = await chat('stream');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe(frames.join(''));
  });

  it('propagates a client disconnect to the upstream', async () => {
    const [u] = await upstreams(1);
    const { app } = await gateway([u.url]);
    u.mode = { kind: 'hold' };
    const abort = new AbortController();
    const pending = app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-model', messages: [] }),
      signal: abort.signal,
    });
    await until(() => u.seen.length === 1);
    abort.abort();
    await Promise.resolve(pending).catch(() => undefined);
    await until(() => u.abandoned === 1);
  });
});

describe('HTTP workers: routing policies', () => {
  it('consistent_hashing keeps a routing key on one worker; --routing-key-headers picks the header', async () => {
    const us = await upstreams(3);
    const { chat, servedBy } = await gateway(us.map((u) => u.url), { policy: 'consistent_hashing', routingKeyHeaders: ['x-session', 'x-smg-routing-key'] });
    const owners = new Set<string>();
    for (let i = 0; i < 6; i++) owners.add(await servedBy(await chat(`turn ${i}`, { 'x-session': 'alice' })));
    expect(owners.size).toBe(1);
    const spread = new Set<string>();
    for (let i = 0; i < 24; i++) spread.add(await servedBy(await chat('x', { 'x-session': `user-${i}` })));
    expect(spread.size).toBeGreaterThan(1);
  });

  it("cache_aware sends a conversation's next turns where its prefix went", async () => {
    const us = await upstreams(3);
    const { chat, servedBy } = await gateway(us.map((u) => u.url), { policy: 'cache_aware' });
    for (const who of ['alice', 'bob', 'carol']) {
      const history = `${who}: ${'tell me a long story about the sea and its tides '.repeat(4)}`;
      const first = await servedBy(await chat(history));
      for (let turn = 1; turn <= 3; turn++) expect(await servedBy(await chat(`${history} turn ${turn}`))).toBe(first);
    }
  });

  for (const policy of ['least_load', 'power_of_two'] as const) {
    it(`${policy} avoids the worker with requests in flight`, async () => {
      const [busy, idle] = await upstreams(2);
      const { chat, servedBy, ctx } = await gateway([busy.url, idle.url], { policy });
      busy.mode = { kind: 'hold' };
      idle.mode = { kind: 'hold' };
      // Three requests held on the first worker (chosen while the other is excluded by load).
      const held = [chat('a'), chat('b'), chat('c')];
      await until(() => busy.seen.length + idle.seen.length === 3);
      const heavy = busy.seen.length >= idle.seen.length ? busy : idle;
      const light = heavy === busy ? idle : busy;
      light.releaseHeld();
      light.mode = { kind: 'ok' };
      await until(() => ctx.workers.list().find((w) => w.url === light.url)!.load === 0);
      for (let i = 0; i < 4; i++) expect(await servedBy(await chat(`n${i}`))).toBe(light.name);
      heavy.releaseHeld();
      await Promise.all(held);
    });
  }
});

describe('HTTP workers: retries and circuit breaker', () => {
  it('retries a retryable answer on another worker before anything reached the client', async () => {
    const [bad, good] = await upstreams(2);
    const { chat, servedBy, ctx } = await gateway([bad.url, good.url], { policy: 'round_robin' });
    bad.mode = { kind: 'status', status: 503 };
    for (let i = 0; i < 4; i++) {
      const res = await chat(`r${i}`);
      expect(res.status).toBe(200);
      expect(await servedBy(res)).toBe('u1');
    }
    expect(bad.seen.length).toBeGreaterThan(0);
    expect(await ctx.metrics.render()).toMatch(/smg_worker_retries_total\{worker_type="regular",endpoint="chat"\} [1-9]/);
  });

  it('a kept-alive connection the worker dropped is re-sent on a fresh one, costing no breaker sample', async () => {
    const [u] = await upstreams(1);
    const { chat, servedBy, ctx } = await gateway([u.url], { disableRetries: true });
    expect(await servedBy(await chat('first'))).toBe('u0');
    u.resetReusedOnce = true;
    const res = await chat('second');
    expect(res.status).toBe(200);
    expect(u.seen.map((r) => JSON.parse(r.body).messages[0].content)).toEqual(['first', 'second', 'second']);
    expect(ctx.workers.list()[0].breaker!.consecutiveFailures).toBe(0);
  });

  it('a worker that refuses connections is retried elsewhere', async () => {
    const [gone, good] = await upstreams(2);
    const { chat, servedBy } = await gateway([gone.url, good.url], { policy: 'round_robin' });
    await gone.stop();
    for (let i = 0; i < 4; i++) expect(await servedBy(await chat(`c${i}`))).toBe('u1');
  });

  it('when every attempt fails the client gets the last upstream status and body; --disable-retries tries once', async () => {
    const [a, b] = await upstreams(2);
    const { chat, ctx } = await gateway([a.url, b.url], { retryMaxRetries: 3, disableCircuitBreaker: true });
    a.mode = { kind: 'status', status: 502 };
    b.mode = { kind: 'status', status: 502 };
    const res = await chat('x');
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^u[01] says 502$/);
    expect(a.seen.length + b.seen.length).toBe(3);
    expect(await ctx.metrics.render()).toMatch(/smg_worker_retries_exhausted_total\{worker_type="regular",endpoint="chat"\} 1/);

    const once = await gateway([a.url], { disableRetries: true });
    const before = a.seen.length;
    expect((await once.chat('y')).status).toBe(502);
    expect(a.seen.length - before).toBe(1);
  });

  it('an open breaker takes the worker out of selection until its half-open probe succeeds', async () => {
    const [flaky, steady] = await upstreams(2);
    const { chat, servedBy, ctx } = await gateway([flaky.url, steady.url], {
      policy: 'round_robin', cbFailureThreshold: 2, cbSuccessThreshold: 1, cbTimeoutDurationSecs: 1, retryMaxRetries: 2,
    });
    flaky.mode = { kind: 'status', status: 500 };
    for (let i = 0; i < 4; i++) await chat(`f${i}`);
    const w = ctx.workers.list().find((x) => x.url === flaky.url)!;
    expect(w.breaker!.state).toBe('open');
    const seen = flaky.seen.length;
    for (let i = 0; i < 4; i++) expect(await servedBy(await chat(`o${i}`))).toBe('u1');
    expect(flaky.seen.length).toBe(seen);
    flaky.mode = { kind: 'ok' };
    await until(() => w.breaker!.state === 'half_open', 3000);
    const served = new Set<string>();
    for (let i = 0; i < 4; i++) served.add(await servedBy(await chat(`h${i}`)));
    expect(served.has('u0')).toBe(true);
    expect(w.breaker!.state).toBe('closed');
    const text = await ctx.metrics.render();
    expect(text).toContain(`smg_worker_cb_transitions_total{worker="${flaky.url}",from="closed",to="open"} 1`);
    expect(text).toContain(`smg_worker_cb_transitions_total{worker="${flaky.url}",from="half_open",to="closed"} 1`);
    expect(text).toContain(`smg_worker_cb_state{worker="${flaky.url}"} 0`);
  });
});

describe('mixed ZMQ and HTTP workers', () => {
  it('a model served only over HTTP is forwarded while the ZMQ model stays on the pipeline', async () => {
    const [u] = await upstreams(1, 'remote-model');
    const { ctx, chat, servedBy } = await gateway([u.url], { modelPath: 'local-model', disableTokenizerAutoload: true });
    ctx.workers.addStartupWorkers(['ipc:///tmp/smg-mixed/engine-0'], 'vllm', null);
    await until(() => ctx.workers.list().length === 2);
    expect(ctx.workers.modelIds().sort()).toEqual(['local-model', 'remote-model']);
    expect(await servedBy(await chat('hi', {}, 'remote-model'))).toBe('u0');
    // The ZMQ model goes to the pipeline (no handler in this app: 501), never to the upstream.
    const local = await chat('hi', {}, 'local-model');
    expect(local.status).toBe(501);
    expect(u.seen).toHaveLength(1);
  });
});
