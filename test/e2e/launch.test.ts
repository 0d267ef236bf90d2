/**
 * `smg launch` as a real process against `smg mock-engine` processes over real ZMQ sockets:
 * pending → ready on handshake, readiness, the worker API, metrics, kill -9 and restart of an
 * engine (timed), removal releasing sockets, and SIGTERM → 143.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { freeTcpPort, headlessServeArgv } from '../../src/mock-engine/spawn.js';
import { runSmg, waitFor, waitForOk, type Proc } from './support/proc.js';

function mockEngine(port: number): Proc {
  return runSmg(['mock-engine', ...headlessServeArgv('mock-model', 1, port)]);
}

interface WorkerEntry {
  id: string;
  url: string;
  status: string;
  connection_mode: string;
  runtime_type: string;
}

describe('smg launch (e2e)', () => {
  let dir: string;
  let gateway: Proc;
  let base: string;
  let metricsUrl: string;
  const engines: Proc[] = [];
  const workerUrl = () => `ipc://${dir}/engine-0`;

  const workers = async () => ((await (await fetch(`${base}/workers`)).json()) as { workers: WorkerEntry[] }).workers;
  const statusOf = async (url: string) => (await workers()).find((w) => w.url === url)?.status;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-e2e-'));
    const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
    base = `http://127.0.0.1:${port}`;
    metricsUrl = `http://127.0.0.1:${mport}/metrics`;
    gateway = runSmg([
      'launch', '--worker-urls', workerUrl(), '--backend', 'vllm', '--model-path', 'mock-model',
      '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
      '--disable-tokenizer-autoload', '--drain-settle-secs', '0', '--policy', 'round_robin',
    ]);
    await waitForOk('gateway liveness', `${base}/liveness`);
  });

  afterAll(async () => {
    for (const e of engines) e.child.kill('SIGKILL');
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('registers pending, turns ready on handshake, and serves readiness, workers and metrics', async () => {
    const [w] = await waitFor('startup worker', async () => {
      const ws = await workers();
      return ws.length === 1 ? ws : undefined;
    });
    expect(w).toMatchObject({ url: workerUrl(), connection_mode: 'zmq', runtime_type: 'vllm', status: 'pending' });
    const notReady = await fetch(`${base}/readiness`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({
      status: 'not ready',
      reason: 'insufficient healthy workers',
      workers: [{ url: workerUrl(), status: 'pending', reason: expect.stringMatching(`^waiting for handshake on tcp://127.0.0.1:${handshakePortFor(workerUrl())} since `) }],
    });

    const t0 = performance.now();
    engines.push(mockEngine(handshakePortFor(workerUrl())));
    await waitFor('worker ready', async () => ((await statusOf(workerUrl())) === 'ready' ? true : undefined));
    console.log(`[measure] engine spawn → worker ready: ${(performance.now() - t0).toFixed(0)} ms`);

    const ready = await fetch(`${base}/readiness`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', healthy_workers: 1, total_workers: 1 });
    const models = (await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['mock-model']);

    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).toMatch(/smg_worker_pool_size\{[^}]*connection_mode="zmq"[^}]*\} 1/);
    expect(metrics).toContain(`smg_worker_health{worker="${workerUrl()}",connection_mode="zmq",runtime="vllm"} 1`);
  });

  it('kill -9 of the engine takes the worker out of ready quickly; a restarted engine reconnects', async () => {
    const engine = engines.pop()!;
    const t0 = performance.now();
    engine.child.kill('SIGKILL');
    await waitFor('worker leaves ready', async () => ((await statusOf(workerUrl())) !== 'ready' ? true : undefined), 60_000, { stepMs: 5 });
    const leftMs = performance.now() - t0;
    console.log(`[measure] kill -9 → worker not ready: ${leftMs.toFixed(0)} ms`);
    expect(leftMs).toBeLessThan(2000);
    expect((await fetch(`${base}/readiness`)).status).toBe(503);
    await engine.exited;

    const t1 = performance.now();
    engines.push(mockEngine(handshakePortFor(workerUrl())));
    await waitFor('worker ready again', async () => ((await statusOf(workerUrl())) === 'ready' ? true : undefined), 90_000);
    console.log(`[measure] engine restart → worker ready again: ${(performance.now() - t1).toFixed(0)} ms`);
    expect(gateway.output()).toMatch(/died \(engine disconnected: [^\n]*\); evicting the dead client and rebinding now/);
  });

  it('POST adds a worker with a fixed handshake address; DELETE drains it and releases its sockets', async () => {
    const url = `ipc://${dir}/engine-api`;
    const hsPort = await freeTcpPort();
    const post = await fetch(`${base}/workers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url, runtime_type: 'vllm', zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` }),
    });
    expect(post.status).toBe(202);
    const { worker_id: id } = (await post.json()) as { worker_id: string };
    expect(post.headers.get('location')).toBe(`/workers/${id}`);

    const engine = mockEngine(hsPort);
    engines.push(engine);
    await waitFor('api worker ready', async () => ((await statusOf(url)) === 'ready' ? true : undefined));
    expect(existsSync(`${dir}/engine-api-in.sock`)).toBe(true);
    const ready = (await (await fetch(`${base}/readiness`)).json()) as { healthy_workers: number; total_workers: number };
    expect(ready).toMatchObject({ healthy_workers: 2, total_workers: 2 });

    const del = await fetch(`${base}/workers/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    await waitFor('api worker removed', async () => ((await fetch(`${base}/workers/${id}`)).status === 404 ? true : undefined));
    expect(existsSync(`${dir}/engine-api-in.sock`)).toBe(false);
    expect(existsSync(`${dir}/engine-api-out.sock`)).toBe(false);
    engine.child.kill('SIGKILL');
  });

  it('DELETE during a handshake aborts it, so the same URL registers again at once', async () => {
    const url = `ipc://${dir}/engine-rebind`;
    const hsPort = await freeTcpPort();
    const body = JSON.stringify({ url, runtime_type: 'vllm', zmq_handshake_address: `tcp://127.0.0.1:${hsPort}` });
    const post = (u: string) => fetch(u, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const { worker_id: id } = (await (await post(`${base}/workers`)).json()) as { worker_id: string };
    await waitFor('handshake bound', async () => (existsSync(`${dir}/engine-rebind-in.sock`) ? true : undefined));
    expect((await fetch(`${base}/workers/${id}`, { method: 'DELETE' })).status).toBe(202);
    await waitFor('removed', async () => ((await fetch(`${base}/workers/${id}`)).status === 404 ? true : undefined));
    const again = await post(`${base}/workers`);
    expect(again.status).toBe(202);
    const engine = mockEngine(hsPort);
    engines.push(engine);
    await waitFor('re-registered worker ready', async () => ((await statusOf(url)) === 'ready' ? true : undefined));
    expect(gateway.output()).not.toContain(`ZMQ backend handshake failed for ${url}`);
  });

  it('SIGTERM drains and exits 143, removing the socket files', async () => {
    expect(existsSync(`${dir}/engine-0-in.sock`)).toBe(true);
    const t0 = performance.now();
    gateway.child.kill('SIGTERM');
    // 143 as an exit code: the gateway handled SIGTERM rather than dying of it.
    expect(await gateway.exited).toBe(143);
    expect(gateway.child.signalCode).toBeNull();
    console.log(`[measure] SIGTERM → exit: ${(performance.now() - t0).toFixed(0)} ms`);
    expect(existsSync(`${dir}/engine-0-in.sock`)).toBe(false);
    expect(existsSync(`${dir}/engine-0-out.sock`)).toBe(false);
  });
});
