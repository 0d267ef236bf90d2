/**
 * The operator surface on the route table: the 501s for embeddings/classify, /version,
 * /v1/models and /v1/models/{id} with served names, /tokenize and /detokenize, a 503 that names
 * the worker a known model waits for, /readiness details, the rate-limited token bucket, the
 * probe-only listener, and a shutdown that does not wait out the settle when nothing is in flight.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { startGateway } from '../../src/gateway/server.js';
import { apiDeps } from '../../src/api/handlers.js';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import type { ModelContext } from '../../src/pipeline/model-context.js';
import type { LoadedTokenizer } from '../../src/pipeline/tokenizer/types.js';
import { packageVersion } from '../../src/util/version.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-operator/engine-a';

/** A word-per-token tokenizer: enough for routes that only encode and decode. */
function fakeModel(): ModelContext {
  const vocab = ['<s>', 'hello', 'world', 'again'];
  const tokenizer = {
    source: '/models/qwen3',
    vocabSize: vocab.length,
    modelConfig: { max_position_embeddings: 32768 },
    encode: (text: string, special = false) => [...(special ? [0] : []), ...text.split(' ').map((w) => vocab.indexOf(w))],
    decode: (ids: readonly number[]) => ids.map((i) => vocab[i]).join(' '),
    idToToken: (id: number) => vocab[id],
  } as unknown as LoadedTokenizer;
  return { tokenizer, template: null, templateError: 'no chat template', harmony: false };
}

function setup(over: Partial<GatewayConfig> = {}) {
  const cap = captureLogger();
  const fake = new FakeConnector();
  const ctx = createGatewayContext(
    { ...defaultGatewayConfig(), modelPath: '/models/qwen3', ...over },
    { logger: cap.logger, connect: fake.connect, deps: { inference: apiDeps().inference } },
  );
  return { ctx, app: buildApp(ctx), fake, cap };
}

const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('endpoints a vLLM user expects', () => {
  it('/v1/embeddings and /v1/classify answer 501 unsupported_backend with SMG text', async () => {
    const { app } = setup();
    for (const path of ['/v1/embeddings', '/v1/classify']) {
      const res = await app.request(path, post({ model: 'm', input: 'hi' }));
      expect(res.status).toBe(501);
      expect(res.headers.get('x-smg-error-code')).toBe('unsupported_backend');
      expect(await res.json()).toEqual({
        error: { type: 'not_implemented_error', code: 'unsupported_backend', message: 'ZMQ backend does not support embeddings yet', param: null },
      });
    }
  });

  it('/version', async () => {
    const { app } = setup();
    const res = await app.request('/version');
    expect(await res.json()).toEqual({ version: packageVersion() });
  });

  it('/v1/models lists every served name; /v1/models/{id} takes ids with a slash; max_model_len from the engine', async () => {
    const { app, ctx, fake } = setup({ servedModelNames: ['Qwen/Qwen3-8B', 'qwen3'] });
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await ctx.workers.settled();
    const pending = (await (await app.request('/v1/models')).json()) as { data: Record<string, unknown>[] };
    expect(pending.data.map((m) => [m.id, m.root, m.max_model_len])).toEqual([
      ['Qwen/Qwen3-8B', '/models/qwen3', null],
      ['qwen3', '/models/qwen3', null],
    ]);
    await waitFor(() => fake.pending.length === 1);
    fake.pendingFor(URL_A)!.complete();
    await waitFor(() => ctx.workers.list()[0].isReady);
    const one = await app.request('/v1/models/Qwen/Qwen3-8B');
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'self_hosted', max_model_len: 4096 });
    const missing = await app.request('/v1/models/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'model_not_found', message: "The model 'nope' does not exist" } });
  });

  it('/tokenize and /detokenize, with or without model, by any served name', async () => {
    const { app, ctx } = setup({ servedModelNames: ['Qwen/Qwen3-8B', 'qwen3'] });
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await ctx.workers.settled();
    ctx.tokenizers.register('Qwen/Qwen3-8B', fakeModel());
    const tok = await app.request('/tokenize', post({ prompt: 'hello world' }));
    expect(tok.status).toBe(200);
    // Special tokens are added by default for a prompt; the config's context length before a handshake.
    expect(await tok.json()).toEqual({ count: 3, max_model_len: 32768, tokens: [0, 1, 2], token_strs: null });
    const strs = await app.request('/tokenize', post({ model: 'qwen3', prompt: 'hello again', add_special_tokens: false, return_token_strs: true }));
    expect(await strs.json()).toMatchObject({ tokens: [1, 3], token_strs: ['hello', 'again'] });
    const detok = await app.request('/detokenize', post({ model: 'qwen3', tokens: [1, 2] }));
    expect(await detok.json()).toEqual({ prompt: 'hello world' });
    const bad = await app.request('/detokenize', post({ tokens: [99] }));
    expect(bad.status).toBe(400);
    const unknown = await app.request('/tokenize', post({ model: 'gpt-4', prompt: 'hello' }));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  });
});

describe('a known model with no ready worker', () => {
  it('answers 503 naming the worker and the handshake it waits for; a request without model uses the only one', async () => {
    const { app, ctx, fake } = setup({ servedModelNames: ['Qwen/Qwen3-8B'] });
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await waitFor(() => fake.pending.length === 1);
    ctx.tokenizers.register('Qwen/Qwen3-8B', fakeModel());
    const res = await app.request('/v1/completions', post({ prompt: 'hello', max_tokens: 1 }));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('no_available_workers');
    expect(body.error.message).toMatch(
      new RegExp(`^No ready worker for model 'Qwen/Qwen3-8B': worker ${URL_A} is pending: waiting for handshake on tcp://127\\.0\\.0\\.1:${handshakePortFor(URL_A)} since \\d{4}-`),
    );
    const unknown = await app.request('/v1/completions', post({ model: '/models/qwen3', prompt: 'hello' }));
    expect(unknown.status).toBe(404);

    const ready = await app.request('/readiness');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      reason: 'insufficient healthy workers',
      workers: [{ url: URL_A, status: 'pending', reason: expect.stringMatching(/^waiting for handshake on tcp:\/\/127\.0\.0\.1:\d+ since /) }],
    });
  });

  it('consistent_hashing: an X-SMG-Target-Worker outside the fleet is a 503', async () => {
    const { app, ctx, fake } = setup({ policy: 'consistent_hashing' });
    fake.auto = true;
    ctx.workers.addStartupWorkers([URL_A], 'vllm', null);
    await waitFor(() => ctx.workers.list()[0]?.isReady === true);
    ctx.tokenizers.register('/models/qwen3', fakeModel());
    const res = await app.request('/v1/completions', post({ prompt: 'hello', max_tokens: 1 }, { 'x-smg-target-worker': '4' }));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      "X-SMG-Target-Worker '4' names no available worker for model /models/qwen3 (1 available, indexed from 0)",
    );
  });
});

describe('--rate-limit-tokens-per-second', () => {
  it('refills the --max-concurrent-requests bucket over time, beyond what finished requests return', async () => {
    const gates: (() => void)[] = [];
    const cap = captureLogger();
    const ctx = createGatewayContext(
      { ...defaultGatewayConfig(), maxConcurrentRequests: 1, queueSize: 1, queueTimeoutSecs: 10, rateLimitTokensPerSecond: 20 },
      {
        logger: cap.logger,
        connect: new FakeConnector().connect,
        deps: {
          inference: {
            completions: async () =>
              new Response(
                new ReadableStream({
                  async start(c) {
                    c.enqueue(new TextEncoder().encode('x'));
                    await new Promise<void>((r) => gates.push(r));
                    c.close();
                  },
                }),
              ),
          },
        },
      },
    );
    const app = buildApp(ctx);
    const first = await app.request('/v1/completions', { method: 'POST', body: '{}' });
    expect(first.status).toBe(200);
    // The first request still holds its token; the refill (20/s) admits the second within ~50 ms.
    const second = await app.request('/v1/completions', { method: 'POST', body: '{}' });
    expect(second.status).toBe(200);
    for (const g of gates) g();
    await Promise.all([first.text(), second.text()]);
  });
});

describe('startGateway', () => {
  it('--health-check-port serves only the probes; close() returns without waiting out the settle when idle', async () => {
    const cap = captureLogger();
    const handle = await startGateway(
      {
        ...defaultGatewayConfig(),
        host: '127.0.0.1',
        port: 0,
        prometheusHost: '127.0.0.1',
        prometheusPort: 0,
        healthCheckPort: 0,
        drainSettleSecs: 30,
        shutdownGracePeriodSecs: 120,
      },
      { logger: cap.logger, connect: new FakeConnector().connect, defaultMetrics: false },
    );
    expect(handle.probePort).not.toBeNull();
    const base = `http://127.0.0.1:${handle.probePort}`;
    expect(await (await fetch(`${base}/liveness`)).text()).toBe('OK');
    expect((await fetch(`${base}/readiness`)).status).toBe(503);
    expect((await fetch(`${base}/v1/models`)).status).toBe(404);
    expect(cap.find(`Probe listener started on 127.0.0.1:${handle.probePort} (--health-check-port 0)`)).toHaveLength(1);
    const t0 = Date.now();
    await handle.close();
    // A 30 s settle with nothing in flight: shutdown does not sit it out.
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
