/**
 * `smg launch` with two single-engine ZMQ workers: each routing policy spreads (or pins) requests
 * as it should, a kill -9 under a live stream fails that request promptly with the documented
 * error, and a rejected registration shows its exact text in the gateway log.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { chat, startGateway, startRanks, waitReady } from './support/grouped-rig.js';
import { TINY_MODEL } from './support/proc.js';
import { type Pair, served, stopTwoWorkers, track, twoWorkers } from './support/two-workers.js';

afterEach(stopTwoWorkers);

async function sequential(p: Pair, n: number, content = 'hello'): Promise<void> {
  for (let i = 0; i < n; i++) await chat(p.gw, content, 2);
}

describe('routing policies over two ZMQ workers', () => {
  it('round_robin alternates', async () => {
    const p = await twoWorkers(['--policy', 'round_robin']);
    await sequential(p, 6);
    expect(served(p)).toEqual([3, 3]);
  });

  it('random uses both workers', async () => {
    const p = await twoWorkers(['--policy', 'random']);
    await sequential(p, 24);
    const [a, b] = served(p);
    expect(a + b).toBe(24);
    expect(Math.min(a, b)).toBeGreaterThan(0);
  });

  it('power_of_two spreads a concurrent burst by load', async () => {
    const p = await twoWorkers(['--policy', 'power_of_two'], ['--mock-token-delay-ms', '20']);
    await Promise.all(Array.from({ length: 8 }, (_, i) => chat(p.gw, `burst ${i}`, 10)));
    const [a, b] = served(p);
    expect(a + b).toBe(8);
    expect(Math.min(a, b)).toBeGreaterThanOrEqual(2);
  });

  it('cache_aware keeps a repeated prompt on the worker that has its prefix', async () => {
    const p = await twoWorkers(['--policy', 'cache_aware']);
    const long = 'The same long system prompt that every request of this conversation shares. '.repeat(8);
    await sequential(p, 6, long);
    const counts = served(p);
    expect(counts[0] + counts[1]).toBe(6);
    expect(Math.max(...counts)).toBe(6);
    // Two workers of one model: the note is logged once, not per registration.
    expect(p.gw.proc.output().split('ZMQ workers have no KV-event stream')).toHaveLength(2);
  });

  it('passthrough sends everything to one worker', async () => {
    const p = await twoWorkers(['--policy', 'passthrough']);
    await sequential(p, 5);
    expect(Math.max(...served(p))).toBe(5);
  });
});

describe('engine death and registration errors seen from the gateway', () => {
  it('kill -9 mid-stream fails the request promptly with the engine-failure text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-k9-'));
    const gw = await startGateway({ startupWorker: false, args: ['--worker-urls', `ipc://${dir}/w0`] });
    const engine = startRanks({ port: handshakePortFor(`ipc://${dir}/w0`), size: 1, args: ['--mock-token-delay-ms', '50'] });
    track({ gw, engines: [engine], dir });
    await waitReady(gw, [engine]);

    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'x' }], max_tokens: 400, stream: true }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"content"')) text += decoder.decode((await reader.read()).value, { stream: true });
    const killedAt = performance.now();
    engine.child.kill('SIGKILL');
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += decoder.decode(r.value, { stream: true });
    }
    const failMs = performance.now() - killedAt;
    expect(text).toMatch(/"error":\{"message":"Stream error: engine disconnected: an engine closed its (input|output) connection/);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(failMs).toBeLessThan(1000);
    console.log(`kill -9 → stream error after ${failMs.toFixed(1)} ms`);
  });

  it('refuses an unsupported runtime before the 202, with its reason, and queues nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-rej-'));
    const gw = await startGateway({ startupWorker: false });
    track({ gw, engines: [], dir });
    const url = `ipc://${dir}/sg`;
    const res = await fetch(`${gw.base}/workers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url, runtime_type: 'sglang' }),
    });
    // Checked synchronously (workers/api-checks.ts): a job that can only fail is never queued.
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_worker_spec', param: 'runtime_type' });
    expect(body.error.message).toBe('runtime_type sglang is not supported over the ZMQ direct backend: use one of vllm, tokenspeed');
    const list = (await (await fetch(`${gw.base}/workers`)).json()) as { workers: unknown[] };
    expect(list.workers).toEqual([]);
    expect(gw.proc.output()).not.toContain('Failed job: type=AddWorker');
  });
});
