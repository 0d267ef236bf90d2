/**
 * TokenSpeed workers through the worker API: `POST /workers` with `runtime_type: tokenspeed` and a
 * fixed `zmq_handshake_address` (the seed's pairing with an engine that dials a fixed port; a free
 * port stands in for 30500), a grouped one whose load snapshot reaches the metrics, and the seed's
 * troubleshooting case: a worker left without a runtime (so vLLM) in front of a TokenSpeed engine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { type APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort, type MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { killProc, runSmg, waitFor, waitForOk, type Proc } from './support/proc.js';
import { qwenModelDir } from './support/qwen.js';
import { spawnTokenSpeed, TS_TEXT } from './support/tokenspeed-rig.js';

let dir: string;
let model: string;
let gateway: Proc;
let base: string;
let metricsURL: string;
let openai: OpenAI;
const engines: MockEngineProcess[] = [];

interface WorkerEntry {
  url: string;
  status: string;
  runtime_type: string;
  connection_mode: string;
  zmq_handshake_address?: string;
  dp_size?: number;
}

const workers = async () => ((await (await fetch(`${base}/workers`)).json()) as { workers: WorkerEntry[] }).workers;
const statusOf = async (url: string) => (await workers()).find((w) => w.url === url)?.status;

/** POST /workers → the worker id (202: registration runs in the background). */
async function addWorker(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base}/workers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { worker_id: string }).worker_id;
}

async function removeWorker(id: string): Promise<void> {
  expect((await fetch(`${base}/workers/${id}`, { method: 'DELETE' })).status).toBe(202);
  await waitFor(`worker ${id} removed`, async () => ((await fetch(`${base}/workers/${id}`)).status === 404 ? true : undefined));
}

function engine(port: number, extra: string[] = []): MockEngineProcess {
  const e = spawnTokenSpeed(model, port, extra);
  engines.push(e);
  return e;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smg-ts-workers-'));
  model = await qwenModelDir(dir);
  const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
  base = `http://127.0.0.1:${port}`;
  metricsURL = `http://127.0.0.1:${mport}/metrics`;
  gateway = runSmg([
    'launch', '--model-path', model, '--host', '127.0.0.1', '--port', String(port),
    '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport), '--drain-settle-secs', '0', '--health-check-interval-secs', '1',
  ]);
  await waitForOk('gateway liveness', `${base}/liveness`);
  openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 });
});

afterAll(async () => {
  await killProc(gateway);
  await Promise.all(engines.map((e) => e.stop(2000)));
  await rm(dir, { recursive: true, force: true });
});

describe('TokenSpeed workers via the worker API', () => {
  it('POST with runtime_type tokenspeed and a fixed zmq_handshake_address pairs with an engine dialing that address', async () => {
    const url = `ipc://${dir}/tokenspeed-0`;
    const hsPort = await freeTcpPort();
    const id = await addWorker({ url, runtime_type: 'tokenspeed', zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` });
    await waitFor('worker listed', async () => ((await statusOf(url)) !== undefined ? true : undefined));
    engine(hsPort);
    await waitFor('worker ready', async () => ((await statusOf(url)) === 'ready' ? true : undefined), 90_000, { detail: () => gateway.output() });
    const [w] = (await workers()).filter((x) => x.url === url);
    expect(w).toMatchObject({ connection_mode: 'zmq', runtime_type: 'tokenspeed', zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` });
    expect(gateway.output()).toContain(`Binding ZMQ client for worker ${url} (handshake=tcp://127.0.0.1:${hsPort}, engines=1)`);
    const r = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.choices[0].message.content).toBe(TS_TEXT);
    const metrics = await (await fetch(metricsURL)).text();
    expect(metrics).toContain(`smg_worker_health{worker="${url}",connection_mode="zmq",runtime="tokenspeed"} 1`);
    await removeWorker(id);
  });

  it('a grouped worker (dp_size 2) spreads requests over engines 0 and 1 and exports their load snapshots', async () => {
    const url = `ipc://${dir}/tokenspeed-dp`;
    const hsPort = await freeTcpPort();
    const id = await addWorker({ url, runtime_type: 'tokenspeed', dp_size: 2, zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` });
    const e = engine(hsPort, ['--data-parallel-size', '2', '--dist-init-addr', '127.0.0.1:31233', '--mock-token-delay-ms', '10']);
    await waitFor('grouped worker ready', async () => ((await statusOf(url)) === 'ready' ? true : undefined), 90_000, { detail: () => gateway.output() });
    const from = e.lines.length;
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 })),
    );
    expect(replies.every((r) => r.choices[0].finish_reason === 'length')).toBe(true);
    const placed = e.lines.slice(from).filter((l) => /request added: /.test(l)).map((l) => /engine=(\d+)/.exec(l)?.[1]);
    expect(placed.sort()).toEqual(['0', '0', '1', '1']);
    const metrics = await (await fetch(metricsURL)).text();
    for (const rank of ['0', '1']) {
      expect(metrics).toMatch(new RegExp(`smg_engine_kv_cache_usage_ratio\\{worker="${url}",rank="${rank}",connection_mode="zmq",runtime="tokenspeed"\\} 0\\.\\d+`));
    }
    await removeWorker(id);
  });

  it('a worker without runtime_type in front of a TokenSpeed engine is refused with a clear reason, not a hang', async () => {
    const url = `ipc://${dir}/no-runtime`;
    const hsPort = await freeTcpPort();
    const id = await addWorker({ url, zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` });
    engine(hsPort);
    await waitFor('runtime mismatch logged', async () => (gateway.output().includes('i.e. it is a TokenSpeed engine') ? true : undefined), 90_000,
      { detail: () => gateway.output() });
    const out = gateway.output();
    expect(out).toContain('runtime_type unspecified for ZMQ worker; defaulting to vLLM EngineCore.');
    expect(out).toContain(
      `ZMQ backend handshake failed for ${url}: engine EngineId(0000) reports vllm_version "tokenspeed-0.1.0", i.e. it is a TokenSpeed engine, ` +
        `but worker ${url} is configured for runtime vllm;`,
    );
    expect(out).toContain('declare runtime_type tokenspeed (--backend tokenspeed for --worker-urls workers)');
    expect(await statusOf(url)).not.toBe('ready');
    // The user-visible outcome: a prompt error, never a request waiting on a silent engine.
    const t0 = performance.now();
    const err = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] }).then(
      () => null,
      (e: unknown) => e as APIError,
    );
    // The only worker for the model never became ready: 404 "No worker available for model …".
    expect(err?.status).toBeGreaterThanOrEqual(400);
    expect(err?.message).toMatch(/worker/i);
    expect(performance.now() - t0).toBeLessThan(2000);
    await removeWorker(id);
  });
});
