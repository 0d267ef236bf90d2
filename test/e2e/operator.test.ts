/**
 * The operator surface against a real `smg launch` and a mock vLLM engine over real sockets, with
 * the Qwen3 tokenizer: served model names (the first reported, all accepted, none needed with one
 * model), /v1/models, /tokenize and /detokenize agreeing with chat's prompt count, /version, the
 * 501s, a promtool-clean /metrics, a 503 naming the handshake a dead engine's worker waits for,
 * and the CLI's usage errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { parseExposition } from '../support/prom-text.js';
import { startRig, type Rig } from './support/rig.js';
import { runSmg, waitFor } from './support/proc.js';

const SERVED = ['Qwen/Qwen3-8B', 'qwen3'];

describe('operator surface (e2e)', () => {
  let rig: Rig;
  const url = (p: string) => `${rig.gatewayURL}${p}`;
  const post = (p: string, body: unknown) =>
    fetch(url(p), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    rig = await startRig({
      gatewayArgs: ['--served-model-name', ...SERVED],
      engineArgs: ['--mock-text', '<think>Greet back.</think>Hi there.', '--max-model-len', '8192'],
    });
  }, 60_000);

  afterAll(async () => {
    await rig?.stop();
  });

  it('accepts every served name and reports the first; a request without model goes to the only model', async () => {
    const byAlias = await rig.openai.chat.completions.create({ model: 'qwen3', messages: [{ role: 'user', content: 'hello' }], max_tokens: 32 });
    expect(byAlias.model).toBe('Qwen/Qwen3-8B');
    // The model path (`…/chat-model`) names no parser family; the served name picks Qwen3's.
    const msg = byAlias.choices[0].message as typeof byAlias.choices[0]['message'] & { reasoning_content?: string | null };
    expect(msg.content).toBe('Hi there.');
    expect(msg.reasoning_content).toBe('Greet back.');

    const res = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hello' }], max_tokens: 32 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe('Qwen/Qwen3-8B');

    const byPath = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'hello' }] });
    expect(byPath.status).toBe(404);
  });

  it('/v1/models lists the served names with a real created and the engine max_model_len', async () => {
    const body = (await (await fetch(url('/v1/models'))).json()) as { data: { id: string; created: number; max_model_len: number; root: string }[] };
    expect(body.data.map((m) => m.id)).toEqual(SERVED);
    for (const m of body.data) {
      expect(m.created).toBeGreaterThan(1_700_000_000);
      expect(m.max_model_len).toBe(8192);
      expect(m.root).toBe(rig.model);
    }
    const one = await fetch(url('/v1/models/Qwen/Qwen3-8B'));
    expect(one.status).toBe(200);
  });

  it('/tokenize counts what chat sends; /detokenize gives the text back; /version; the 501s', async () => {
    const messages = [{ role: 'user' as const, content: 'Count my tokens, please.' }];
    const chat = await rig.openai.chat.completions.create({ model: 'qwen3', messages, max_tokens: 4 });
    const tok = (await (await post('/tokenize', { model: 'qwen3', messages })).json()) as { count: number; tokens: number[]; max_model_len: number };
    expect(tok.count).toBe(chat.usage!.prompt_tokens);
    expect(tok.max_model_len).toBe(8192);
    const prompt = (await (await post('/tokenize', { prompt: 'Hello, world!', add_special_tokens: false })).json()) as { tokens: number[] };
    const back = (await (await post('/detokenize', { tokens: prompt.tokens })).json()) as { prompt: string };
    expect(back.prompt).toBe('Hello, world!');

    expect(await (await fetch(url('/version'))).json()).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const emb = await post('/v1/embeddings', { model: 'qwen3', input: 'x' });
    expect(emb.status).toBe(501);
    expect(await emb.json()).toMatchObject({ error: { code: 'unsupported_backend', message: 'ZMQ backend does not support embeddings yet' } });
  });

  it('/metrics is clean Prometheus text, labelled with the served name', async () => {
    const text = await (await fetch(rig.metricsURL)).text();
    const { families, problems } = parseExposition(text);
    expect(problems).toEqual([]);
    expect(families.has('smg_nodejs_active_handles_total')).toBe(false);
    const pool = families.get('smg_worker_pool_size')!.samples;
    expect(pool.map((s) => s.labels.model)).toEqual(['Qwen/Qwen3-8B']);
  });

  it('once the engine is gone, requests get a 503 naming the handshake the worker waits for', async () => {
    await rig.engine.stop(5000);
    const workerUrl = `ipc://${rig.model.replace(/\/[^/]+$/, '')}/e0`;
    const hs = `tcp://127.0.0.1:${handshakePortFor(workerUrl)}`;
    const body = await waitFor('503 with a reason', async () => {
      const res = await post('/v1/chat/completions', { model: 'qwen3', messages: [{ role: 'user', content: 'hello' }] });
      return res.status === 503 ? ((await res.json()) as { error: { code: string; message: string } }) : undefined;
    });
    expect(body.error.code).toBe('no_available_workers');
    expect(body.error.message).toContain(`No ready worker for model 'Qwen/Qwen3-8B': worker ${workerUrl} is not_ready: waiting for handshake on ${hs} since `);
    const ready = (await (await fetch(url('/readiness'))).json()) as { reason: string; workers: { reason: string; last_error: { message: string } | null }[] };
    expect(ready.reason).toBe('insufficient healthy workers');
    expect(ready.workers[0].reason).toMatch(/^waiting for handshake on tcp:\/\/127\.0\.0\.1:\d+ since /);
    expect(ready.workers[0].last_error?.message).toMatch(/engine/);
  });
});

describe('smg usage errors (e2e)', () => {
  it('no command or an unknown one exits 2; a bogus launch flag is named once; sglang cannot drive ipc:// workers', async () => {
    const none = runSmg([]);
    expect(await none.exited).toBe(2);
    const unknown = runSmg(['frobnicate']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output()).toContain("smg: unknown command 'frobnicate'");
    const bogus = runSmg(['launch', '--bogus-flag']);
    expect(await bogus.exited).toBe(2);
    expect(bogus.output()).toContain("error: unexpected argument '--bogus-flag' found");
    expect(bogus.output()).not.toContain('bogusFlag');
    const sglang = runSmg(['launch', '--backend', 'sglang', '--worker-urls', 'ipc:///tmp/smg-op/e0', '--model-path', 'm']);
    expect(await sglang.exited).toBe(2);
    expect(sglang.output()).toContain('--backend sglang cannot drive ipc:// workers');
  });
});
