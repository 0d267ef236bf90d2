import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fairTurn } from '../../src/util/fair-turn.js';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* synchronous request work */
  }
};

describe('fairTurn', () => {
  it('lets work go on at once while the turn is young', async () => {
    await nextTurn();
    expect(fairTurn()).toBeNull();
    expect(fairTurn()).toBeNull();
  });

  it('spreads a burst over turns, first come first served, a few ms of it per turn', async () => {
    await nextTurn();
    const order: number[] = [];
    const turnOf: number[] = [];
    let turn = 0;
    const ticker = setInterval(() => turn++, 0);
    // 30 requests arrive in one turn, each costing 1 ms of synchronous work when it runs.
    const runs = Array.from({ length: 30 }, async (_, i) => {
      const wait = fairTurn();
      if (wait) await wait;
      order.push(i);
      turnOf.push(turn);
      spin(1);
    });
    await Promise.all(runs);
    clearInterval(ticker);
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // No turn ran more than a few of them: timers got to run between the slices.
    const perTurn = new Map<number, number>();
    for (const t of turnOf) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(4);
    expect(perTurn.size).toBeGreaterThanOrEqual(8);
  });

  it('a burst of 1,000 waiters keeps a bounded number of release callbacks queued, and all go in order', async () => {
    await nextTurn();
    const immediates = () => process.getActiveResourcesInfo().filter((r) => r === 'Immediate').length;
    const before = immediates();
    const order: number[] = [];
    let most = 0;
    const runs = Array.from({ length: 1000 }, async (_, i) => {
      const wait = fairTurn();
      most = Math.max(most, immediates() - before);
      if (wait) await wait;
      order.push(i);
      most = Math.max(most, immediates() - before);
      spin(0.05);
    });
    await Promise.all(runs);
    expect(order).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    // One per waiter would be ~1,000 queued every turn the burst lasts.
    expect(most).toBeLessThanOrEqual(40);
  });
});
