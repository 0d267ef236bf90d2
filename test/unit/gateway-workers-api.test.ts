import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-api/engine-a';

/** The gateway envelope every worker-route error comes in. */
function envelope(status: 400 | 404 | 409 | 415 | 422, code: string, message: string, param: string | null = null) {
  const type = status === 404 ? 'not_found_error' : 'invalid_request_error';
  return { error: { message, type, param, code } };
}

async function expectError(res: Response, status: 400 | 404 | 409 | 415 | 422, code: string, message: string, param: string | null = null) {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-smg-error-code')).toBe(code);
  expect(await res.json()).toEqual(envelope(status, code, message, param));
}

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
  ])('400 invalid_worker_url for %j', async (url, reason) => {
    const { json } = setup();
    const res = await json('POST', '/workers', { url });
    await expectError(res, 400, 'invalid_worker_url', `Invalid value for field 'worker_url': ${url} - ${reason}`, 'url');
  });

  it.each([
    [{ url: 'ipc://rel/path' }, 'invalid_worker_url', 'url', /the ipc path must be absolute/],
    [{ url: 'ipc:///tmp/smg-api/../etc/x' }, 'invalid_worker_url', 'url', /must not contain '\.' or '\.\.' segments/],
    [{ url: 'ipc:///tmp//smg-api/x' }, 'invalid_worker_url', 'url', /must be normalized/],
    [{ url: `ipc:///tmp/${'d'.repeat(100)}` }, 'invalid_worker_url', 'url', /Unix socket paths are limited to 107/],
    [{ url: `ipc:///${'x'.repeat(100_000)}` }, 'invalid_worker_url', 'url', /URL is 100007 characters long; at most 2048/],
    [{ url: 'grpc://127.0.0.1:8000' }, 'invalid_worker_url', 'url', /this gateway serves ipc:\/\/, http:\/\/, https:\/\/ workers only/],
    [{ url: URL_A, runtime_type: 'sglang' }, 'invalid_worker_spec', 'runtime_type', /runtime_type sglang is not supported over the ZMQ direct backend/],
    [{ url: URL_A, worker_type: 'prefill' }, 'invalid_worker_spec', 'worker_type', /worker_type prefill is not supported/],
    [{ url: URL_A, dp_size: 1_000_000_000 }, 'invalid_worker_spec', 'dp_size', /^dp_size must be between 1 and 1024, got 1000000000$/],
    [{ url: URL_A, dp_size: 0 }, 'invalid_worker_spec', 'dp_size', /^dp_size must be between 1 and 1024, got 0$/],
    [{ url: URL_A, zmq_handshake_address: 'udp://127.0.0.1:5000' }, 'invalid_worker_spec', 'zmq_handshake_address', /must be tcp:\/\/<host>:<port>/],
    [{ url: URL_A, zmq_handshake_address: 'tcp://127.0.0.1' }, 'invalid_worker_spec', 'zmq_handshake_address', /must be tcp:\/\/<host>:<port>/],
    [{ url: URL_A, zmq_handshake_address: 'tcp://127.0.0.1:70000' }, 'invalid_worker_spec', 'zmq_handshake_address', /must be tcp:\/\/<host>:<port>/],
  ])('400 before the 202 for %#', async (body, code, param, text) => {
    const { json, ctx } = setup();
    const res = await json('POST', '/workers', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-smg-error-code')).toBe(code);
    const got = (await res.json()) as { error: { code: string; param: string; message: string } };
    expect(got.error).toMatchObject({ code, param });
    expect(got.error.message).toMatch(text);
    expect(got.error.message.length).toBeLessThan(1000);
    // Nothing was queued.
    expect(ctx.workers.list()).toHaveLength(0);
    await ctx.workers.settled();
    expect(ctx.workers.list()).toHaveLength(0);
  });

  it('409 worker_already_exists', async () => {
    const { json, ctx } = setup();
    const first = (await (await json('POST', '/workers', { url: URL_A })).json()) as { worker_id: string };
    await ctx.workers.settled();
    const res = await json('POST', '/workers', { url: URL_A });
    const id = first.worker_id;
    await expectError(
      res,
      409,
      'worker_already_exists',
      `Worker already exists at URL '${URL_A}' with ID ${id}. Use PUT /workers/${id} to replace or PATCH /workers/${id} to update.`,
      'url',
    );
  });

  it('409 worker_create_in_progress while the first registration is queued', async () => {
    const { json } = setup();
    const [a, b] = await Promise.all([json('POST', '/workers', { url: URL_A }), json('POST', '/workers', { url: URL_A })]);
    expect(a.status).toBe(202);
    const id = ((await a.json()) as { worker_id: string }).worker_id;
    await expectError(b, 409, 'worker_create_in_progress', `Worker creation already in progress for URL '${URL_A}' with ID ${id}`, 'url');
  });

  it('body failures come in the envelope too: 415, 400, 422', async () => {
    const { app, json } = setup();
    const r415 = await app.request('/workers', { method: 'POST', body: '{"url":"x"}' });
    await expectError(r415, 415, 'unsupported_media_type', 'Expected request with `Content-Type: application/json`');
    const r400 = await app.request('/workers', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{nope' });
    expect(r400.status).toBe(400);
    const b400 = (await r400.json()) as { error: { message: string; code: string } };
    expect(b400.error.code).toBe('json_parse_error');
    expect(b400.error.message).toMatch(/^Failed to parse the request body as JSON: /);
    const r422 = await json('POST', '/workers', { runtime_type: 'vllm' });
    await expectError(r422, 422, 'invalid_worker_spec', 'Failed to deserialize the JSON body into the target type: missing field `url`');
    const bad = await json('POST', '/workers', { url: URL_A, runtime_type: 'nonsense' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('unknown variant `nonsense`');
  });

  it('a rejected registration is logged and reported as job_status on a 404', async () => {
    const { json, app, cap, ctx } = setup({ modelPath: null });
    const body = (await (await json('POST', '/workers', { url: URL_A, runtime_type: 'vllm' })).json()) as { worker_id: string };
    await ctx.workers.settled();
    const msg = `ZMQ worker ${URL_A} has no model identity: EngineCore does not report a served model name, so --model-path (or a model_id label) is required`;
    expect(cap.find(`Failed job: type=AddWorker, worker=${URL_A}, error=Workflow failed at step create_local_worker: Step failed: create_worker - ${msg}`)).toHaveLength(1);
    const res = await app.request(`/workers/${body.worker_id}`);
    expect(res.status).toBe(404);
    const got = (await res.json()) as { error: { code: string }; job_status: { status: string; job_type: string } };
    expect(got.error.code).toBe('worker_not_found');
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
    const b = (await bad.json()) as { error: { message: string; code: string; param: string } };
    expect(b.error).toMatchObject({ code: 'invalid_worker_id', param: 'worker_id', type: 'invalid_request_error' });
    expect(b.error.message).toMatch(/^Invalid worker_id 'xyz' \(expected UUID\)\. Error: invalid character/);
    const id = '0b6f8a3e-1111-4222-8333-444455556666';
    const nf = await app.request(`/workers/${id}`);
    await expectError(nf, 404, 'worker_not_found', `Worker ${id} not found`, 'worker_id');
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
    await expectError(
      put,
      400,
      'url_mismatch',
      `URL mismatch: worker has URL '${URL_A}' but request body has 'ipc:///tmp/other'. URL changes are not supported via PUT. Use DELETE + POST instead.`,
    );
    const putText = await app.request(`/workers/${id}`, { method: 'PUT', body: 'x' });
    await expectError(putText, 415, 'unsupported_media_type', 'Expected request with `Content-Type: application/json`');
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
    await expectError(
      res,
      400,
      'data_parallel_put_unsupported',
      `Worker '${URL_A}' belongs to a data-parallel group. PUT is not supported for data-parallel workers. Use DELETE + POST instead.`,
    );
  });
});
