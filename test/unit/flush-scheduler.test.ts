import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Corked, scheduleFlush } from '../../src/api/flush-scheduler.js';
import { readerCaughtUp, readersBehindUntil, yieldSpentSlice } from '../../src/engine/read-pressure.js';

function corked(log: string[], name: string, costMs = 0): Corked {
  return {
    corkedAt: performance.now(),
    flush() {
      const until = performance.now() + costMs;
      while (performance.now() < until) {
        /* a slow socket write */
      }
      log.push(name);
    },
  };
}

/** A corked stream that records when it was flushed and whether a reader was still behind then. */
function watched(): Corked & { flushedAt: number; behindUntil: number } {
  return {
    corkedAt: performance.now(),
    flushedAt: -1,
    behindUntil: -1,
    flush() {
      this.flushedAt = performance.now();
      this.behindUntil = readersBehindUntil();
    },
  };
}

describe('SSE flush scheduler', () => {
  it('writes every corked stream in the turn it was corked when no engine reader is behind', async () => {
    const log: string[] = [];
    scheduleFlush(corked(log, 'a'));
    scheduleFlush(corked(log, 'b'));
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['a', 'b']);
  });

  it('spreads slow writes over several turns, in order, so one turn stays short', async () => {
    const log: string[] = [];
    for (let i = 0; i < 40; i++) scheduleFlush(corked(log, String(i), 0.5));
    await nextTurn();
    // A clock read every 8 writes and a short slice per turn: 8 writes of 0.5 ms, then the rest waits.
    expect(log.length).toBeGreaterThan(0);
    expect(log.length).toBeLessThan(40);
    while (log.length < 40) await nextTurn();
    expect(log).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
  });

  it('holds streams while a reader is behind and writes them once it catches up', async () => {
    const turn = yieldSpentSlice(); // a reader ran out of its slice with messages still queued
    const held = watched();
    scheduleFlush(held);
    await turn;
    await nextTurn();
    // Written before the reader caught up only if it had lapsed meanwhile (this process was
    // descheduled for longer than a reader counts as behind: a loaded machine).
    if (held.flushedAt >= 0) expect(held.flushedAt).toBeGreaterThanOrEqual(held.behindUntil - 1);
    readerCaughtUp();
    await nextTurn();
    expect(held.flushedAt).toBeGreaterThanOrEqual(0);
  });

  it('writes a held stream when its hold time is up even if the reader stays behind', async () => {
    const held = watched();
    scheduleFlush(held);
    // Keep the reader "behind" by yielding spent slices until the stream goes out.
    while (held.flushedAt < 0) await yieldSpentSlice();
    readerCaughtUp();
    // A reader counts as behind for a few ms after its last yield. On a loaded machine this process
    // can be descheduled longer than that, and then the reader has rightly lapsed and the stream
    // goes out at once. While the reader is still behind, the stream must wait out its hold.
    const readerLapsed = held.flushedAt >= held.behindUntil - 1;
    if (!readerLapsed) expect(held.flushedAt - held.corkedAt).toBeGreaterThanOrEqual(15);
  });
});
