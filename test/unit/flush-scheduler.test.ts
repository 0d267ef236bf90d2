import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Flushable, scheduleFlush } from '../../src/api/flush-scheduler.js';

function stream(log: string[], name: string, costMs = 0): Flushable {
  return {
    flush() {
      const until = performance.now() + costMs;
      while (performance.now() < until) {
        /* a slow socket write */
      }
      log.push(name);
    },
    flushFailed(err) {
      log.push(`${name} failed: ${(err as Error).message}`);
    },
  };
}

describe('SSE flush scheduler', () => {
  it('writes every queued stream at the end of the turn it was queued in', async () => {
    const log: string[] = [];
    scheduleFlush(stream(log, 'a'));
    scheduleFlush(stream(log, 'b'));
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['a', 'b']);
  });

  it('spreads slow writes over several turns, in order, so one turn stays short', async () => {
    const log: string[] = [];
    for (let i = 0; i < 40; i++) scheduleFlush(stream(log, String(i), 0.5));
    await nextTurn();
    // A clock read every 8 writes and a short slice per turn: 8 writes of 0.5 ms, then the rest waits.
    expect(log.length).toBeGreaterThan(0);
    expect(log.length).toBeLessThan(40);
    while (log.length < 40) await nextTurn();
    expect(log).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
  });
});
