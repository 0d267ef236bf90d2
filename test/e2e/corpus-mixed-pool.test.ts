/**
 * Capability-aware routing end to end: one model served by a TokenSpeed worker (registered first)
 * and a vLLM worker under `cache_aware`. Requests only vLLM can serve (chat `top_logprobs` 5,
 * completions `logprobs: 2`) all land on the vLLM engine and succeed; plain requests still use
 * both; with the vLLM worker gone the same request is the TokenSpeed 400, not a wedge.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort, spawnMockEngine, type MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { killProc, runSmg, waitFor, waitForOk, type Proc } from './support/proc.js';
import { qwenModelDir } from './support/qwen.js';
import { spawnTokenSpeed } from './support/tokenspeed-rig.js';

let dir: string;
let model: string;
let gateway: Proc;
let base: string;
let ts: MockEngineProcess;
let vllm: MockEngineProcess;
let vllmId: string;

const added = (e: MockEngineProcess) => e.lines.filter((l) => l.includes('request added: ')).length;

async function addWorker(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base}/workers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { worker_id: string }).worker_id;
}

async function readyCount(): Promise<number> {
  const { workers } = (await (await fetch(`${base}/workers`)).json()) as { workers: { status: string }[] };
  return workers.filter((w) => w.status === 'ready').length;
}

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model, ...body }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smg-mixed-'));
  model = await qwenModelDir(dir);
  const port = await freeTcpPort();
  base = `http://127.0.0.1:${port}`;
  gateway = runSmg([
    'launch', '--model-path', model, '--policy', 'cache_aware', '--host', '127.0.0.1', '--port', String(port),
    '--prometheus-port', String(await freeTcpPort()), '--drain-settle-secs', '0',
  ]);
  await waitForOk('gateway liveness', `${base}/liveness`);
  const tsPort = await freeTcpPort();
  await addWorker({ url: `ipc://${dir}/ts`, runtime_type: 'tokenspeed', zmq_handshake_address: `tcp://127.0.0.1:${tsPort}` });
  ts = spawnTokenSpeed(model, tsPort);
  await waitFor('TokenSpeed worker ready', async () => ((await readyCount()) === 1 ? true : undefined), 20_000, { detail: () => gateway.output() });
  const vPort = await freeTcpPort();
  vllmId = await addWorker({ url: `ipc://${dir}/vllm`, runtime_type: 'vllm', zmq_handshake_address: `tcp://127.0.0.1:${vPort}` });
  vllm = spawnMockEngine({ port: vPort, model, args: ['--mock-log-requests'] });
  await waitFor('both workers ready', async () => ((await readyCount()) === 2 ? true : undefined), 20_000, { detail: () => gateway.output() });
  await waitForOk('gateway readiness', `${base}/readiness`);
});

afterAll(async () => {
  await killProc(gateway);
  await Promise.all([ts?.stop(2000), vllm?.stop(2000)]);
  await rm(dir, { recursive: true, force: true });
});

describe('a pool mixing vLLM and TokenSpeed for one model', () => {
  it('requests only vLLM serves always go to the vLLM worker', async () => {
    const [tsBefore, vBefore] = [added(ts), added(vllm)];
    for (let i = 0; i < 8; i++) {
      const chat = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, logprobs: true, top_logprobs: 5 });
      expect(chat.status, JSON.stringify(chat.json)).toBe(200);
      const lp = (chat.json.choices as { logprobs: { content: { top_logprobs: unknown[] }[] } }[])[0].logprobs.content;
      expect(lp[0].top_logprobs).toHaveLength(5);
      const cmpl = await post('/v1/completions', { prompt: 'Hi', max_tokens: 4, logprobs: 2 });
      expect(cmpl.status, JSON.stringify(cmpl.json)).toBe(200);
    }
    await waitFor('the vLLM engine saw them', () => (added(vllm) >= vBefore + 16 ? true : undefined), 10_000);
    expect(added(vllm)).toBe(vBefore + 16);
    expect(added(ts)).toBe(tsBefore);
  });

  it('plain requests still use both workers', async () => {
    const [tsBefore, vBefore] = [added(ts), added(vllm)];
    for (let i = 0; i < 12; i++) {
      const r = await post('/v1/completions', { prompt: `Question number ${i}: ${'why '.repeat(i + 1)}`, max_tokens: 2 });
      expect(r.status).toBe(200);
    }
    await waitFor('12 requests at the engines', () => (added(ts) - tsBefore + added(vllm) - vBefore >= 12 ? true : undefined), 10_000);
    expect(added(ts)).toBeGreaterThan(tsBefore);
    expect(added(vllm)).toBeGreaterThan(vBefore);
  });

  it('with no vLLM worker left, the request is the TokenSpeed 400', async () => {
    expect((await fetch(`${base}/workers/${vllmId}`, { method: 'DELETE' })).status).toBe(202);
    await waitFor('vLLM worker removed', async () => ((await readyCount()) === 1 ? true : undefined), 20_000);
    const before = added(ts);
    const r = await post('/v1/completions', { prompt: 'Hi', max_tokens: 4, logprobs: 2 });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ message: 'top_logprobs are not supported over the TokenSpeed ZMQ backend', type: 'invalid_request_error' });
    expect(added(ts)).toBe(before);
  });
});
