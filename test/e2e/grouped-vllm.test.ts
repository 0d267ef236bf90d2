/**
 * A grouped vLLM worker over real processes: `smg launch --zmq-engine-count 2` and one mock
 * process running ranks 0 and 1 (independent, dense DP). Where each request landed is read from
 * the mock's own `request added … rank=N` lines.
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
  workers,
  type Gateway,
} from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

// 30 tokens at 40 ms: a request stays in flight ~1.2 s, long enough to watch it on /workers.
const TOKEN_DELAY_MS = 40;

describe('grouped vLLM worker, one process with 2 ranks (e2e)', () => {
  let gw: Gateway;
  let mock: MockEngineProcess;

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    mock = startRanks({ port: gw.handshakePort, size: 2, args: ['--mock-token-delay-ms', String(TOKEN_DELAY_MS)] });
    await waitReady(gw, [mock]);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), mock?.stop(2000)]);
  });

  it('waits for both engines and shows the group as one worker with per-rank state', async () => {
    expect(gw.proc.output()).toContain(`Binding ZMQ client for worker ${gw.workerUrl} (handshake=tcp://127.0.0.1:${gw.handshakePort}, engines=2)`);
    expect(gw.proc.output()).toMatch(/ZMQ engine group connected .*engines=EngineId\(0000\),EngineId\(0100\) lockstep=false/);
    const ws = await workers(gw);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ url: gw.workerUrl, status: 'ready', dp_size: 2 });
    expect(ws[0].engines.map((e) => e.rank)).toEqual([0, 1]);
    expect(ws[0].engine_load).toMatchObject({ engine_count: 2, engines_connected: 2, in_flight: 0 });
  });

  it('a cold burst of 2 lands one per rank, visible in flight on /workers and /metrics', async () => {
    const from = lineCounts([mock]);
    const burst = [complete(gw, 'burst one', 30), complete(gw, 'burst two', 30)];
    const during = await waitFor('both requests in flight', async () => {
      const es = await enginesOf(gw);
      return es.every((e) => e.in_flight === 1) ? es : undefined;
    });
    expect(during.map((e) => e.in_flight)).toEqual([1, 1]);
    const metrics = await (await fetch(gw.metricsUrl)).text();
    for (const rank of ['0', '1']) {
      expect(metrics).toContain(`smg_engine_inflight_requests{worker="${gw.workerUrl}",rank="${rank}",connection_mode="zmq",runtime="vllm"} 1`);
    }
    const done = await Promise.all(burst);
    const placed = placements([mock], from);
    expect(perRank(placed, 2)).toEqual([1, 1]);
    // The response ids are the engine request ids, so each answer maps to the rank that made it.
    expect(new Set(done.map((d) => placed.get(d.id)))).toEqual(new Set([0, 1]));
  });

  it('reports each rank\'s scheduler load and drops it back to idle afterwards', async () => {
    const metrics = await (await fetch(gw.metricsUrl)).text();
    for (const name of ['smg_engine_running_requests', 'smg_engine_waiting_requests', 'smg_engine_kv_cache_usage_ratio']) {
      for (const rank of ['0', '1']) expect(metrics).toMatch(new RegExp(`${name}\\{worker="[^"]+",rank="${rank}"[^}]*\\} `));
    }
    // Both ranks reported while serving; once empty, running/waiting are reset to zero.
    const es = await enginesOf(gw);
    expect(es.map((e) => [e.in_flight, e.num_running, e.num_waiting])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(es.every((e) => typeof e.kv_cache_usage === 'number')).toBe(true);
  });

  it('equal scores rotate: sequential requests alternate between the ranks', async () => {
    const from = lineCounts([mock]);
    const ranks: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await complete(gw, `sequential ${i}`, 2);
      ranks.push(placements([mock], from).get(r.id)!);
    }
    expect(perRank(placements([mock], from), 2)).toEqual([3, 3]);
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]).not.toBe(ranks[i - 1]);
  });

  it('a burst of 8 splits 4/4 before any load report can arrive', async () => {
    const from = lineCounts([mock]);
    await Promise.all(Array.from({ length: 8 }, (_, i) => complete(gw, `wide burst ${i}`, 10)));
    expect(perRank(placements([mock], from), 2)).toEqual([4, 4]);
  });
});
