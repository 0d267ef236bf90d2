/**
 * How a grouped worker comes to exist, or fails to: the handshake waits for exactly N engines (an
 * extra one and a missing one fail with SMG's texts), `dp_size` on POST /workers makes a group,
 * and `--dp-aware` refuses to expand one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import {
  complete,
  lineCounts,
  perRank,
  placements,
  startGateway,
  startRanks,
  workers,
  type Gateway,
} from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

const running: { stop(): Promise<unknown> }[] = [];
const track = <T extends { stop(): Promise<unknown> }>(p: T): T => (running.push(p), p);

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

const postWorker = (gw: Gateway, body: Record<string, unknown>) =>
  fetch(`${gw.base}/workers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('the handshake waits for exactly N engines', () => {
  it('an extra engine (3 ranks dialing a worker expecting 2) fails with the duplicate-HELLO text', async () => {
    const gw = track(await startGateway({ engineCount: 2 }));
    // The load delay holds READY back, so the third HELLO surely arrives while READYs are awaited.
    const mock = track(startRanks({ port: gw.handshakePort, size: 3, args: ['--mock-load-delay-ms', '500'] }));
    const line = await gw.proc.waitForLine(/ZMQ backend handshake failed/, 60_000);
    expect(line).toMatch(
      new RegExp(
        `ZMQ backend handshake failed for ${gw.workerUrl}: unexpected startup handshake message: ` +
          `duplicate HELLO for engine id EngineId\\(0[0-2]00\\) after INIT phase; will retry on the next health probe`,
      ),
    );
    expect((await workers(gw))[0].status).not.toBe('ready');
    expect((await fetch(`${gw.base}/readiness`)).status).toBe(503);
    expect(mock.output()).toContain('HELLO sent');
  });

  it('a missing engine leaves the handshake waiting until the stage timeout', async () => {
    const gw = track(await startGateway({ engineCount: 2, args: ['--zmq-stage-timeout-secs', '1'] }));
    // Rank 0 of 2 only: the HELLO phase never completes.
    track(startRanks({ port: gw.handshakePort, size: 2, local: 1, startRank: 0 }));
    const line = await gw.proc.waitForLine(/ZMQ backend handshake failed/, 60_000);
    expect(line).toContain(
      `ZMQ backend handshake failed for ${gw.workerUrl}: startup handshake timed out while waiting for HELLO after 1s; will retry on the next health probe`,
    );
    expect((await workers(gw))[0].status).not.toBe('ready');
  });
});

describe('POST /workers with dp_size', () => {
  let gw: Gateway;
  let mock: MockEngineProcess | undefined;

  beforeAll(async () => {
    gw = await startGateway({ startupWorker: false });
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), mock?.stop(2000)]);
  });

  it('registers a grouped worker that waits for 2 engines and spreads a burst over them', async () => {
    const url = `ipc://${gw.dir}/api-group`;
    const post = await postWorker(gw, { url, runtime_type: 'vllm', dp_size: 2 });
    expect(post.status).toBe(202);
    await gw.proc.waitForLine(/Binding ZMQ client for worker .*api-group .*engines=2\)/);
    expect(gw.proc.output()).toMatch(new RegExp(`Registered ZMQ worker ${url} \\(id=[^,]+, runtime=vllm, model=[^,]+, engines=2\\)`));

    mock = startRanks({ port: handshakePortFor(url), size: 2, args: ['--mock-token-delay-ms', '20'] });
    const [w] = await waitFor('grouped API worker ready', async () => {
      const ws = await workers(gw);
      return ws[0]?.status === 'ready' ? ws : undefined;
    });
    expect(w).toMatchObject({ url, dp_size: 2, engine_load: { engine_count: 2, engines_connected: 2 } });
    expect(w.engines.map((e) => e.rank)).toEqual([0, 1]);
    await waitFor('readiness', async () => ((await fetch(`${gw.base}/readiness`)).ok ? true : undefined));

    const from = lineCounts([mock]);
    await Promise.all([complete(gw, 'api one', 10), complete(gw, 'api two', 10)]);
    expect(perRank(placements([mock], from), 2)).toEqual([1, 1]);
  });

  it('a PATCH keeps the group size and the live connection', async () => {
    const [w] = await workers(gw);
    const binds = gw.proc.lines.filter((l) => l.includes('Binding ZMQ client')).length;
    const res = await fetch(`${gw.base}/workers/${w.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ labels: { tier: 'gold' } }),
    });
    expect(res.status).toBe(202);
    await waitFor('label applied', async () => {
      const body = (await (await fetch(`${gw.base}/workers/${w.id}`)).json()) as { labels?: Record<string, string> };
      return body.labels?.tier === 'gold' ? true : undefined;
    });
    const [after] = await workers(gw);
    expect(after).toMatchObject({ status: 'ready', dp_size: 2, engine_load: { engine_count: 2, engines_connected: 2 } });
    expect(gw.proc.lines.filter((l) => l.includes('Binding ZMQ client')).length).toBe(binds);
    const from = lineCounts([mock!]);
    await Promise.all([complete(gw, 'patched one', 10), complete(gw, 'patched two', 10)]);
    expect(perRank(placements([mock!], from), 2)).toEqual([1, 1]);
  });
});

describe('--dp-aware refuses grouped workers', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2, args: ['--dp-aware'] });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const rejection = (url: string, n: number) =>
    `ZMQ worker ${url} cannot be dp-aware expanded (dp_size=${n}); configure a grouped ZMQ worker (\`dp_size\` on the worker spec) instead`;

  it('rejects the startup worker from --zmq-engine-count with the SMG text', async () => {
    const line = await gw.proc.waitForLine(/Failed job: type=AddWorker/);
    expect(line).toContain(
      `Failed job: type=AddWorker, worker=${gw.workerUrl}, error=Workflow failed at step create_local_worker: Step failed: create_worker - ${rejection(gw.workerUrl, 2)}`,
    );
    expect(await workers(gw)).toEqual([]);
  });

  it('refuses dp_size 2 from the API before the 202 (nothing queued) but registers a single-engine worker', async () => {
    const grouped = `ipc://${gw.dir}/api-dp`;
    const res = await postWorker(gw, { url: grouped, runtime_type: 'vllm', dp_size: 2 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_worker_spec', param: 'dp_size' });
    expect(body.error.message).toContain(rejection(grouped, 2));
    expect((await workers(gw)).some((w) => w.url === grouped)).toBe(false);

    const single = `ipc://${gw.dir}/api-single`;
    expect((await postWorker(gw, { url: single, runtime_type: 'vllm' })).status).toBe(202);
    await waitFor('single-engine worker registered', async () =>
      (await workers(gw)).some((w) => w.url === single) ? true : undefined,
    );
  });
});
