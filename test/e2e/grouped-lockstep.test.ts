/**
 * A vLLM MoE lockstep group (`--mock-lockstep`): both ranks register data_parallel_size 2, run only
 * together and park after a drained wave until START_DP_WAVE arrives. No DP coordinator runs, so
 * only the gateway's wake keeps sequential requests from stalling on a parked group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import {
  chat,
  complete,
  lineCounts,
  perRank,
  placements,
  startGateway,
  startRanks,
  waitReady,
  type Gateway,
} from './support/grouped-rig.js';

const PARKED = /lockstep group drained: wave_complete sent, parked at wave (\d+)/;

function parkedWaves(mock: MockEngineProcess): number[] {
  return mock.lines.flatMap((l) => {
    const m = PARKED.exec(l);
    return m ? [Number(m[1])] : [];
  });
}

describe('lockstep group of 2 ranks (e2e)', () => {
  let gw: Gateway;
  let mock: MockEngineProcess;

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    mock = startRanks({ port: gw.handshakePort, size: 2, args: ['--mock-lockstep', '--mock-token-delay-ms', '5'] });
    await waitReady(gw, [mock]);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), mock?.stop(2000)]);
  });

  it('is detected as lockstep from the registrations', () => {
    expect(gw.proc.output()).toMatch(/ZMQ engine group connected .*lockstep=true/);
    expect(mock.output()).toContain('lockstep (data_parallel_size=2)');
  });

  it('serves 5 sequential chat completions, each after the group parked, without stalling', async () => {
    const from = lineCounts([mock]);
    for (let i = 0; i < 5; i++) {
      const parkedBefore = parkedWaves(mock).length;
      const t0 = performance.now();
      const res = await chat(gw, `lockstep turn ${i}`, 8);
      const ms = performance.now() - t0;
      expect(res.choices[0].message.content.length).toBeGreaterThan(0);
      expect(ms).toBeLessThan(3000);
      // Let the group drain and park, so the next request meets a parked group.
      await mock.waitForLine(PARKED, 30_000);
      const end = Date.now() + 5000;
      while (parkedWaves(mock).length <= parkedBefore && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      expect(parkedWaves(mock).length).toBeGreaterThan(parkedBefore);
    }
    // Every wake named a wave the ranks accepted, so each turn ran a new wave. The exact numbers
    // depend on whether wave_complete(W) reached the clock before the next ADD (then W + 2 is
    // sent, else W + 1); both are >= the parked ranks' W + 1, which is the point of bumping.
    const waves = parkedWaves(mock);
    expect(waves).toHaveLength(5);
    expect(waves[0]).toBe(2);
    for (let i = 1; i < waves.length; i++) expect(waves[i]).toBeGreaterThan(waves[i - 1]);
    // Ties rotate in lockstep too: the turns alternate between the ranks.
    expect(perRank(placements([mock], from), 2).sort()).toEqual([2, 3]);
  });

  it('a cold burst of 2 on a parked group lands one per rank and both finish', async () => {
    const from = lineCounts([mock]);
    const t0 = performance.now();
    await Promise.all([complete(gw, 'parked burst a', 8), complete(gw, 'parked burst b', 8)]);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(perRank(placements([mock], from), 2)).toEqual([1, 1]);
  });
});

describe('lockstep ranks in separate processes (one rank each)', () => {
  let gw: Gateway;
  let mocks: MockEngineProcess[];

  beforeAll(async () => {
    gw = await startGateway({ engineCount: 2 });
    // Each process parks and wakes its own rank; the mock does not couple processes, so this
    // checks that every rank gets the wake (both register data_parallel_size 2), not true lockstep.
    mocks = [0, 1].map((r) =>
      startRanks({ port: gw.handshakePort, size: 2, local: 1, startRank: r, args: ['--mock-lockstep', '--mock-token-delay-ms', '5'] }),
    );
    await waitReady(gw, mocks);
  });

  afterAll(async () => {
    await Promise.all([gw?.stop(), ...(mocks ?? []).map((m) => m.stop(2000))]);
  });

  it('serves sequential requests on alternating ranks, each woken from parked', async () => {
    expect(gw.proc.output()).toMatch(/ZMQ engine group connected .*lockstep=true/);
    for (let i = 0; i < 4; i++) {
      const holder = mocks[i % 2];
      const parked = parkedWaves(holder).length;
      const t0 = performance.now();
      await complete(gw, `split lockstep ${i}`, 8);
      expect(performance.now() - t0).toBeLessThan(3000);
      const end = Date.now() + 5000;
      while (parkedWaves(holder).length <= parked && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    }
    expect(perRank(placements(mocks), 2)).toEqual([2, 2]);
  });
});
