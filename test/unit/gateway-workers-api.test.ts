import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-api/engine-a';

function setup(over: Partial<GatewayConfig> = {}) {
  const cap = captureLogger();
  const fake = new FakeConnector();
  const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm', ...over }, { logger: cap.logger, connect: fake.connect });
  const app = buildApp(ctx);
  const json = (method: string, path: string, body: unknown) =>
    app.request(path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { ctx, app, fake, cap, json };
}

async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('POST /workers', () => {
  it('202 with Location and body; registration runs in the background', async () => {
    const { app, json, fake } = setup();
    const res = await json('POST', '/workers', { url: URL_A, runtime_type: 'tokenspeed' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Record<string, string>;
    expect(res.headers.get('location')).toBe(`/workers/${body.worker_id}`);
    expect(body).toEqual({
      status: 'accepted',
      worker_id: body.worker_id,
      url: URL_A,
      location: `/workers/${body.worker_id}`,
      message: 'Worker addition queued for background processing',
    });
    expect(body.worker_id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => fake.calls.length === 1);
    expect(fake.calls[0].runtime).toBe('tokenspeed');
    const one = await app.request(`/workers/${body.worker_id}`);
    expect(((await one.json()) as { status: string }).status).toBe('pending');
  });

  it('accepts `runtime` as an alias and zmq_handshake_address', async () => {
    const { json, fake } = setup();
    await json('POST', '/workers', { url: URL_A, runtime: 'tokenspeed', zmq_handshake_address: 'tcp://127.0.0.1:30500' });
    await waitFor(() => fake.calls.length === 1);
    expect(fake.calls[0]).toMatchObject({ runtime: 'tokenspeed', handshakeAddress: 'tcp://127.0.0.1:30500' });
  });

  it.each([
    ['', 'URL cannot be empty'],
    ['HTTP://x', 'URL must start with a lowercase http://, https://, grpc://, grpcs://, or ipc:// scheme'],
    ['ipc://', 'ipc:// worker URL must include a socket path'],
  ])('400 BAD_REQUEST for %j', async (url, reason) => {
    const { json } = setup();
    const res = await json('POST', '/workers', { url });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: `Invalid value for field 'worker_url': ${url} - ${reason}`, code: 'BAD_REQUEST' });
  });

  it('409 WORKER_ALREADY_EXISTS', async () => {
    const { json, ctx } = setup();
    const first = (await (await json('POST', '/workers', { url: URL_A })).json()) as { worker_id: string };
    await ctx.workers.settled();
    const res = await json('POST', '/workers', { url: URL_A });
    expect(res.status).toBe(409);
    const id = first.worker_id;
    expect(await res.json()).toEqual({
      error: `Worker already exists at URL '${URL_A}' with ID ${id}. Use PUT /workers/${id} to replace or PATCH /workers/${id} to update.`,
      code: 'WORKER_ALREADY_EXISTS',
    });
  });

  it('409 WORKER_CREATE_IN_PROGRESS while the first registration is queued', async () => {
    const { json } = setup();
    const [a, b] = await Promise.all([json('POST', '/workers', { url: URL_A }), json('POST', '/workers', { url: URL_A })]);
    expect(a.status).toBe(202);
    expect(b.status).toBe(409);
    const id = ((await a.json()) as { worker_id: string }).worker_id;
    expect(await b.json()).toEqual({
      error: `Worker creation already in progress for URL '${URL_A}' with ID ${id}`,
      code: 'WORKER_CREATE_IN_PROGRESS',
    });
  });

  it('body failures are plain text: 415, 400, 422', async () => {
    const { app, json } = setup();
    const r415 = await app.request('/workers', { method: 'POST', body: '{"url":"x"}' });
    expect(r415.status).toBe(415);
    const r400 = await app.request('/workers', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{nope' });
    expect(r400.status).toBe(400);
    expect(await r400.text()).toMatch(/^Failed to parse the request body as JSON: /);
    const r422 = await json('POST', '/workers', { runtime_type: 'vllm' });
    expect(r422.status).toBe(422);
    expect(await r422.text()).toBe('Failed to deserialize the JSON body into the target type: missing field `url`');
    const bad = await json('POST', '/workers', { url: URL_A, runtime_type: 'nonsense' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('unknown variant `nonsense`');
  });

  it('a rejected registration is logged and reported as job_status on a 404', async () => {
    const { json, app, cap, ctx } = setup();
    const body = (await (await json('POST', '/workers', { url: URL_A, runtime_type: 'sglang' })).json()) as { worker_id: string };
    await ctx.workers.settled();
    const msg = `ZMQ worker ${URL_A} has unsupported runtime sglang: only vllm and tokenspeed are supported over the ZMQ direct backend`;
    expect(cap.find(`Failed job: type=AddWorker, worker=${URL_A}, error=Workflow failed at step create_local_worker: Step failed: create_worker - ${msg}`)).toHaveLength(1);
    const res = await app.request(`/workers/${body.worker_id}`);
    expect(res.status).toBe(404);
    const got = (await res.json()) as { code: string; job_status: { status: string; job_type: string } };
    expect(got.code).toBe('WORKER_NOT_FOUND');
    expect(got.job_status).toMatchObject({ status: 'failed', job_type: 'AddWorker' });
  });
});

describe('GET /workers', () => {
  it('lists ZMQ entries with engines and totals; ?model filters', async () => {
    const { json, app, fake } = setup();
    fake.auto = true;
    await json('POST', '/workers', { url: URL_A, runtime_type: 'vllm', dp_size: 2, labels: { team: 'x' } });
    await waitFor(() => fake.clients.length === 1);
    fake.clients[0].rankStates = [
      { rank: 0, inFlight: 2, load: { numRunning: 3, numWaiting: 1, kvCacheUsage: 0.25 } },
      { rank: 1, inFlight: 0, load: null },
    ];
    await waitFor(() => true);
    const res = await app.request('/workers');
    const body = (await res.json()) as { workers: Record<string, unknown>[]; total: number; stats: unknown };
    expect(body.total).toBe(1);
    expect(body.stats).toEqual({ prefill_count: 0, decode_count: 0, regular_count: 1 });
    const w = body.workers[0];
    expect(w).toMatchObject({
      url: URL_A,
      connection_mode: 'zmq',
      runtime_type: 'vllm',
      status: 'ready',
      is_healthy: true,
      model_id: 'm',
      load: 0,
      dp_size: 2,
      worker_type: 'regular',
      priority: 50,
      cost: 1,
      labels: { team: 'x' },
    });
    expect(w).not.toHaveProperty('api_key');
    expect(w.engines).toEqual([
      { rank: 0, in_flight: 2, num_running: 3, num_waiting: 1, kv_cache_usage: 0.25 },
      { rank: 1, in_flight: 0, num_running: null, num_waiting: null, kv_cache_usage: null },
    ]);
    expect(w.engine_load).toEqual({ engine_count: 2, engines_connected: 2, in_flight: 2, num_running: 3, num_waiting: 1 });
    const filtered = (await (await app.request('/workers?model=other')).json()) as { total: number };
    expect(filtered.total).toBe(0);
  });
});

describe('/workers/{id}', () => {
  it('400 for a non-UUID id, 404 for an unknown one', async () => {
    const { app } = setup();
    const bad = await app.request('/workers/xyz');
    expect(bad.status).toBe(400);
    const b = (await bad.json()) as { error: string; code: string };
    expect(b.code).toBe('BAD_REQUEST');
    expect(b.error).toMatch(/^Invalid worker_id 'xyz' \(expected UUID\)\. Error: invalid character/);
    const id = '0b6f8a3e-1111-4222-8333-444455556666';
    const nf = await app.request(`/workers/${id}`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ error: `Worker ${id} not found`, code: 'WORKER_NOT_FOUND' });
    expect((await app.request(`/workers/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('PATCH 202 keeps the connection; PUT URL mismatch 400; DELETE 202 removes', async () => {
    const { app, json, fake, ctx } = setup();
    fake.auto = true;
    const { worker_id: id } = (await (await json('POST', '/workers', { url: URL_A })).json()) as { worker_id: string };
    await waitFor(() => ctx.workers.get(id)?.status === 'ready');
    const patch = await json('PATCH', `/workers/${id}`, { labels: { a: 'b' }, priority: 3 });
    expect(patch.status).toBe(202);
    expect(await patch.json()).toEqual({ status: 'accepted', worker_id: id, message: 'Worker update queued for background processing' });
    await ctx.workers.settled();
    expect(fake.calls).toHaveLength(1);
    expect(ctx.workers.get(id)?.status).toBe('ready');
    const entry = (await (await app.request(`/workers/${id}`)).json()) as { labels: unknown; priority: number };
    expect(entry).toMatchObject({ labels: { a: 'b' }, priority: 3 });

    const put = await json('PUT', `/workers/${id}`, { url: 'ipc:///tmp/other' });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({
      error: `URL mismatch: worker has URL '${URL_A}' but request body has 'ipc:///tmp/other'. URL changes are not supported via PUT. Use DELETE + POST instead.`,
      code: 'BAD_REQUEST',
    });
    expect((await json('PUT', `/workers/${id}`, { url: URL_A, priority: 1 })).status).toBe(202);

    const del = await app.request(`/workers/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    expect(await del.json()).toEqual({ status: 'accepted', worker_id: id, message: 'Worker removal queued for background processing' });
    await waitFor(() => ctx.workers.get(id) === undefined);
    expect(fake.clients[0].closed).toBe(true);
  });

  it('PUT is refused under --dp-aware', async () => {
    const { json, fake, ctx } = setup({ dpAware: true });
    fake.auto = true;
    const { worker_id: id } = (await (await json('POST', '/workers', { url: URL_A })).json()) as { worker_id: string };
    await waitFor(() => ctx.workers.get(id) !== undefined);
    const res = await json('PUT', `/workers/${id}`, { url: URL_A });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(
      `Worker '${URL_A}' belongs to a data-parallel group. PUT is not supported for data-parallel workers. Use DELETE + POST instead.`,
    );
  });
});
