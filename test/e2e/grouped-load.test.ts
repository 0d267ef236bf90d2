/**
 * Least-loaded rank selection against reported load: a mock rank made to look busy with
 * `--mock-rank-load` (requests of some other client in its scheduler_stats) is avoided. Covers
 * one process running both ranks and one process per rank (--data-parallel-start-rank).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import {
  complete,
  enginesOf,
  lineCounts,
  perRank,
  placements,
  startGateway,
  startRanks,
  waitReady,
  type EngineView,
  type Gateway,
} from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

const SLOW = ['--mock-token-delay-ms', '30'];

/** Waits until the gateway has stored the extra load `rank` reports. */
async function loadSeen(gw: Gateway, rank: number, check: (e: EngineView) => boolean): Promise<EngineView> {
  return waitFor(`rank ${rank} load on /workers`, async () => {
    const e = (await enginesOf(gw)).find((x) => x.rank === rank);
    return e && check(e) ? e : undefined;
  });
}

describe('a heavily loaded rank is avoided (one process, 2 ranks)', () => {
  let gw: Gateway;
  let mock: MockEngineProcess;

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    // Rank 0: 4 running, 8 waiting on a 95% full KV cache → score 12 + 8·6·0.45 = 33.6.
    mock = startRanks({ port: gw.handshakePort, size: 2, args: [...SLOW, '--mock-rank-load', '0:4:8:0.95'] });
    await waitReady(gw, [mock]);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), mock?.stop(2000)]);
  });

  it('shows the loaded rank\'s report on /workers and /metrics', async () => {
    const e0 = await loadSeen(gw, 0, (e) => e.num_waiting === 8);
    expect(e0).toMatchObject({ rank: 0, in_flight: 0, num_running: 4, num_waiting: 8 });
    expect(e0.kv_cache_usage).toBeGreaterThanOrEqual(0.95);
    const metrics = await (await fetch(gw.metricsUrl)).text();
    expect(metrics).toContain(`smg_engine_waiting_requests{worker="${gw.workerUrl}",rank="0",connection_mode="zmq",runtime="vllm"} 8`);
    expect(metrics).toContain(`smg_engine_running_requests{worker="${gw.workerUrl}",rank="0",connection_mode="zmq",runtime="vllm"} 4`);
    expect(metrics).toMatch(new RegExp(`smg_engine_kv_cache_usage_ratio\\{worker="${gw.workerUrl}",rank="0"[^}]*\\} 0\\.95`));
  });

  it('sends a burst of 8 new requests to the idle rank only', async () => {
    const from = lineCounts([mock]);
    await Promise.all(Array.from({ length: 8 }, (_, i) => complete(gw, `avoid ${i}`, 10)));
    expect(perRank(placements([mock], from), 2)).toEqual([0, 8]);
  });
});

describe('the KV term: the same queue on a fuller cache weighs more (one process, 2 ranks)', () => {
  let gw: Gateway;
  let mock: MockEngineProcess;

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    // Both ranks: 4 waiting. Rank 0 at 90% KV scores 4 + 4·6·0.4 = 13.6; rank 1 at 30% scores 4.
    mock = startRanks({ port: gw.handshakePort, size: 2, args: [...SLOW, '--mock-rank-load', '0:0:4:0.9,1:0:4:0.3'] });
    await waitReady(gw, [mock]);
    await loadSeen(gw, 0, (e) => e.num_waiting === 4);
    await loadSeen(gw, 1, (e) => e.num_waiting === 4);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), mock?.stop(2000)]);
  });

  it('routes a burst of 8 to the rank whose waiting requests are not about to be preempted', async () => {
    const from = lineCounts([mock]);
    // Rank 1 climbs to at most 4 + 8 = 12 < 13.6; without the KV term the burst would split.
    await Promise.all(Array.from({ length: 8 }, (_, i) => complete(gw, `kv ${i}`, 10)));
    expect(perRank(placements([mock], from), 2)).toEqual([0, 8]);
  });
});

describe('one mock process per rank (--data-parallel-start-rank)', () => {
  let gw: Gateway;
  let mocks: MockEngineProcess[];

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    mocks = [
      startRanks({ port: gw.handshakePort, size: 2, local: 1, startRank: 0, args: SLOW }),
      startRanks({ port: gw.handshakePort, size: 2, local: 1, startRank: 1, args: [...SLOW, '--mock-rank-load', '1:4:8:0.95'] }),
    ];
    await waitReady(gw, mocks);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), ...(mocks ?? []).map((m) => m.stop(2000))]);
  });

  it('forms one group of two identities from two processes', async () => {
    expect(gw.proc.output()).toMatch(/ZMQ engine group connected .*engines=EngineId\(0000\),EngineId\(0100\)/);
    expect((await enginesOf(gw)).map((e) => e.rank)).toEqual([0, 1]);
  });

  it('avoids the loaded rank in the other process', async () => {
    await loadSeen(gw, 1, (e) => e.num_waiting === 8);
    const from = lineCounts(mocks);
    await Promise.all(Array.from({ length: 6 }, (_, i) => complete(gw, `split ${i}`, 10)));
    expect(perRank(placements(mocks, from), 2)).toEqual([6, 0]);
    // Each process only ever saw its own rank.
    expect(mocks[0].output()).not.toMatch(/request added: .*rank=1/);
    expect(mocks[1].output()).not.toMatch(/request added: /);
  });
});
