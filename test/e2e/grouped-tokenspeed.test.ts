/**
 * Grouped TokenSpeed workers: `smg launch --backend tokenspeed --zmq-engine-count 2` and TokenSpeed
 * mock ranks whose identities are `--zmq-engine-index` + rank. The load snapshot in the batch tail
 * feeds rank selection; without it (pre-load 10-element batches) ranks are scored on in-flight alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  complete,
  enginesOf,
  lineCounts,
  perRank,
  placements,
  startGateway,
  startTsEngines,
  waitReady,
  workers,
  type Gateway,
} from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

const stops: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
});

async function gateway(): Promise<Gateway> {
  const gw = await startGateway({ engineCount: 2, backend: 'tokenspeed' });
  stops.push(() => gw.stop());
  return gw;
}

function engines(o: Parameters<typeof startTsEngines>[0]) {
  const p = startTsEngines(o);
  stops.push(() => p.stop(2000));
  return p;
}

const SLOW = ['--mock-token-delay-ms', '30'];

describe('grouped TokenSpeed worker (e2e)', () => {
  it('identities are engine index + rank: --zmq-engine-index 4 gives engines 4 and 5; a cold burst lands one on each', async () => {
    const gw = await gateway();
    const ts = engines({ port: gw.handshakePort, base: 4, size: 2, args: SLOW });
    await waitReady(gw, [ts]);
    expect(gw.proc.output()).toMatch(/ZMQ engine group connected .*engines=EngineId\(0400\),EngineId\(0500\)/);
    const [w] = await workers(gw);
    expect(w).toMatchObject({ runtime_type: 'tokenspeed', dp_size: 2 });
    expect(w.engines.map((e) => e.rank)).toEqual([4, 5]);

    const from = lineCounts([ts]);
    const burst = [complete(gw, 'ts one', 20), complete(gw, 'ts two', 20)];
    // The 14-element batches carry a load snapshot; it shows per engine while they run.
    const during = await waitFor('both engines busy with a snapshot', async () => {
      const es = await enginesOf(gw);
      return es.every((e) => e.in_flight === 1 && e.num_running !== null) ? es : undefined;
    });
    expect(during.map((e) => e.num_running)).toEqual([1, 1]);
    await Promise.all(burst);
    expect(perRank(placements([ts], from), [4, 5])).toEqual([1, 1]);
  });

  it('avoids an engine whose load snapshot shows a long queue on a nearly full cache', async () => {
    const gw = await gateway();
    const ts = engines({ port: gw.handshakePort, size: 2, args: [...SLOW, '--mock-rank-load', '0:4:8:0.95'] });
    await waitReady(gw, [ts]);
    const e0 = await waitFor('engine 0 snapshot', async () => {
      const e = (await enginesOf(gw)).find((x) => x.rank === 0);
      return e && e.num_waiting === 8 ? e : undefined;
    });
    // TokenSpeed's num_running counts every admitted request, waiting ones included.
    expect(e0).toMatchObject({ num_running: 12, num_waiting: 8 });
    expect(e0.kv_cache_usage).toBeGreaterThanOrEqual(0.95);
    const from = lineCounts([ts]);
    await Promise.all(Array.from({ length: 6 }, (_, i) => complete(gw, `ts avoid ${i}`, 8)));
    expect(perRank(placements([ts], from), 2)).toEqual([0, 6]);
  });

  it('without a load snapshot (10-element batches) ranks are scored on in-flight alone', async () => {
    const gw = await gateway();
    const ts = engines({ port: gw.handshakePort, size: 2, args: [...SLOW, '--mock-output-arity', '10'] });
    await waitReady(gw, [ts]);
    const from = lineCounts([ts]);
    const burst = Array.from({ length: 6 }, (_, i) => complete(gw, `ts plain ${i}`, 10));
    const during = await waitFor('burst in flight', async () => {
      const es = await enginesOf(gw);
      return es.every((e) => e.in_flight === 3) ? es : undefined;
    });
    expect(during.map((e) => [e.num_running, e.num_waiting, e.kv_cache_usage])).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
    await Promise.all(burst);
    expect(perRank(placements([ts], from), 2)).toEqual([3, 3]);
  });

  it('two processes, one engine each (--zmq-engine-index 0 and 1), form one group', async () => {
    const gw = await gateway();
    const procs = [engines({ port: gw.handshakePort, base: 0, size: 1, args: SLOW }), engines({ port: gw.handshakePort, base: 1, size: 1, args: SLOW })];
    await waitReady(gw, procs);
    expect((await enginesOf(gw)).map((e) => e.rank)).toEqual([0, 1]);
    const from = lineCounts(procs);
    await Promise.all(Array.from({ length: 4 }, (_, i) => complete(gw, `ts split ${i}`, 8)));
    expect(perRank(placements(procs, from), 2)).toEqual([2, 2]);
    expect(procs[0].output()).not.toMatch(/request added: .*engine=1/);
  });

  it('an extra TokenSpeed engine never joins: it fails the handshake or is left unanswered', async () => {
    const gw = await gateway();
    const ts = engines({ port: gw.handshakePort, size: 3 });
    // TokenSpeed loads before HELLO and answers INIT with READY at once, so whether the third HELLO
    // lands in the READY phase (the SMG text) or after the handshake (never answered) is a race;
    // either way the group never holds more than the 2 engines it was told about.
    const line = await gw.proc.waitForLine(/ZMQ backend handshake failed|ZMQ engine group connected/, 60_000);
    if (line.includes('handshake failed')) {
      expect(line).toMatch(
        /ZMQ backend handshake failed for \S+: unexpected startup handshake message: duplicate HELLO for engine id EngineId\(0[0-2]00\) after INIT phase/,
      );
    } else {
      expect(line).toMatch(/engines=EngineId\(0[0-2]00\),EngineId\(0[0-2]00\) /);
      expect((await enginesOf(gw)).length).toBe(2);
      // The handshake socket is gone: the third engine's HELLO is never answered.
      await new Promise((r) => setTimeout(r, 300));
      expect(ts.lines.filter((l) => l.includes('INIT received')).length).toBe(2);
    }
  });
});
