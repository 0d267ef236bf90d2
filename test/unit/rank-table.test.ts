import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engine/client-types.js';
import { rankScore, RankTable } from '../../src/engine/rank-table.js';

describe('rankScore', () => {
  it('is max(own in-flight, running+waiting)', () => {
    expect(rankScore(0, null)).toBe(0);
    expect(rankScore(3, { numRunning: 1, numWaiting: 0, kvCacheUsage: 0.9 })).toBe(3);
    expect(rankScore(1, { numRunning: 5, numWaiting: 0, kvCacheUsage: 0.9 })).toBe(5);
  });

  it('adds waiting × 6 × (kv − 0.5) only when requests wait and kv is past half', () => {
    expect(rankScore(0, { numRunning: 2, numWaiting: 2, kvCacheUsage: 0.4 })).toBe(4);
    expect(rankScore(0, { numRunning: 2, numWaiting: 2, kvCacheUsage: 0.75 })).toBeCloseTo(4 + 2 * 6 * 0.25);
    expect(rankScore(0, { numRunning: 2, numWaiting: 0, kvCacheUsage: 1 })).toBe(2);
  });
});

describe('RankTable', () => {
  it('rotates ties across ranks', () => {
    const t = new RankTable([0, 1, 2]);
    const picks: number[] = [];
    for (let i = 0; i < 6; i++) {
      const id = `r${i}`;
      picks.push(t.reserve(id));
      t.release(id);
    }
    expect(picks).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('spreads a burst through reservations before any load report', () => {
    const t = new RankTable([0, 1]);
    const picks = [0, 1, 2, 3, 4, 5].map((i) => t.reserve(`b${i}`));
    expect(picks.filter((r) => r === 0)).toHaveLength(3);
    expect(picks.filter((r) => r === 1)).toHaveLength(3);
    expect(t.states().map((s) => s.inFlight)).toEqual([3, 3]);
  });

  it('prefers the strictly lower score and respects reported load', () => {
    const t = new RankTable([0, 1]);
    t.storeLoad(0, { numRunning: 8, numWaiting: 0, kvCacheUsage: 0.2 });
    expect([t.reserve('a'), t.reserve('b'), t.reserve('c')]).toEqual([1, 1, 1]);
    // KV pressure with a queue weighs more than raw length.
    const u = new RankTable([0, 1]);
    u.storeLoad(0, { numRunning: 2, numWaiting: 2, kvCacheUsage: 0.95 }); // 4 + 5.4
    u.storeLoad(1, { numRunning: 8, numWaiting: 0, kvCacheUsage: 0.95 }); // 8
    expect(u.reserve('x')).toBe(1);
  });

  it('releases idempotently by id', () => {
    const t = new RankTable([0, 1]);
    const r = t.reserve('x');
    expect(t.release('x')).toBe(r);
    expect(t.release('x')).toBeNull();
    expect(t.release('never')).toBeNull();
    expect(t.inFlightCount()).toBe(0);
  });

  it('zeroes running/waiting (keeping kv) when a rank empties', () => {
    const t = new RankTable([0]);
    t.reserve('x');
    t.reserve('y');
    t.storeLoad(0, { numRunning: 2, numWaiting: 1, kvCacheUsage: 0.7 });
    t.release('x');
    expect(t.states()[0].load).toEqual({ numRunning: 2, numWaiting: 1, kvCacheUsage: 0.7 });
    t.release('y');
    expect(t.states()[0].load).toEqual({ numRunning: 0, numWaiting: 0, kvCacheUsage: 0.7 });
  });

  it('load stored before the release of the same batch does not stick', () => {
    const t = new RankTable([0, 1]);
    t.reserve('a'); // rank 0
    // The terminal batch for `a` still counts it as running.
    t.storeLoad(0, { numRunning: 1, numWaiting: 0, kvCacheUsage: 0.1 });
    t.release('a');
    expect(t.states()[0].load?.numRunning).toBe(0);
    expect(t.reserve('b')).toBe(1); // rotation, not a stale count, decides
    expect(t.reserve('c')).toBe(0);
  });

  it('pins a rank by engine index and rejects an unknown one', () => {
    const t = new RankTable([4, 5]); // TokenSpeed base 4
    expect(t.reserve('p', 5)).toBe(5);
    expect(t.holderOf('p')).toBe(5);
    let err: unknown;
    try {
      t.reserve('q', 2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).message).toBe('data parallel rank 2 is out of range for 2 engine(s)');
    expect(t.holderOf('q')).toBeNull();
  });

  it('clear() drops every reservation', () => {
    const t = new RankTable([0, 1]);
    t.reserve('a');
    t.reserve('b');
    t.clear();
    expect(t.inFlightCount()).toBe(0);
    expect(t.states().map((s) => s.inFlight)).toEqual([0, 0]);
  });

  it('stays consistent under interleaved select/release/load (stress)', () => {
    const ranks = [0, 1, 2, 3];
    const t = new RankTable(ranks);
    const live = new Map<string, number>();
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    let next = 0;
    for (let step = 0; step < 20_000; step++) {
      const op = rnd();
      if (op < 0.5 || live.size === 0) {
        const id = `s${next++}`;
        const pinned = rnd() < 0.1 ? ranks[Math.floor(rnd() * 4)] : null;
        const r = t.reserve(id, pinned);
        if (pinned !== null) expect(r).toBe(pinned);
        live.set(id, r);
      } else if (op < 0.9) {
        const ids = [...live.keys()];
        const id = ids[Math.floor(rnd() * ids.length)];
        expect(t.release(id)).toBe(live.get(id));
        expect(t.release(id)).toBeNull();
        live.delete(id);
      } else {
        t.storeLoad(Math.floor(rnd() * 4), {
          numRunning: Math.floor(rnd() * 5),
          numWaiting: Math.floor(rnd() * 3),
          kvCacheUsage: rnd(),
        });
      }
      if (step % 500 === 0) {
        const counts = ranks.map((r) => [...live.values()].filter((v) => v === r).length);
        expect(t.states().map((s) => s.inFlight)).toEqual(counts);
        expect(t.inFlightCount()).toBe(live.size);
      }
    }
    // Without load skew, unpinned picks keep in-flight counts within a small band.
    const fresh = new RankTable(ranks);
    for (let i = 0; i < 400; i++) fresh.reserve(`f${i}`);
    expect(fresh.states().map((s) => s.inFlight)).toEqual([100, 100, 100, 100]);
  });
});
