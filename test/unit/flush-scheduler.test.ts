import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Flushable, scheduleFlush } from '../../src/api/flush-scheduler.js';
import { RawSseWriter } from '../../src/api/raw-sse.js';
import type { SseEncoder } from '../../src/api/sse.js';
import type { RawResponse } from '../../src/api/types.js';
import type { GenEvent } from '../../src/pipeline/events.js';

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

describe('SSE flush scheduler: first tokens go first', () => {
  it('writes a stream that has written no token yet before streams already streaming', async () => {
    const log: string[] = [];
    scheduleFlush(stream(log, 'running-1'));
    scheduleFlush(stream(log, 'running-2'));
    scheduleFlush(stream(log, 'new'), true);
    await nextTurn();
    expect(log).toEqual(['new', 'running-1', 'running-2']);
  });

  it('keeps first frames ahead of every other stream when they take more than one turn', async () => {
    const log: string[] = [];
    for (let i = 0; i < 24; i++) {
      scheduleFlush(stream(log, `running-${i}`, 0.2));
      scheduleFlush(stream(log, `new-${i}`, 0.2), true);
    }
    await nextTurn();
    // Still one short slice per turn.
    expect(log.length).toBeLessThan(48);
    while (log.length < 48) await nextTurn();
    expect(log.slice(0, 24)).toEqual(Array.from({ length: 24 }, (_, i) => `new-${i}`));
    expect(log.slice(24)).toEqual(Array.from({ length: 24 }, (_, i) => `running-${i}`));
  });

  it('RawSseWriter: a new stream is written before one already streaming, each stream in order', async () => {
    const log: string[] = [];
    const streaming = writer('old', log);
    const fresh = writer('new', log);
    streaming.begin();
    streaming.push(TOKEN);
    await nextTurn();
    expect(log).toEqual(['old: data: token\n\n']);
    fresh.begin();
    // One engine message: the running stream's next token, then the newcomer's first.
    streaming.push(TOKEN);
    fresh.push(TOKEN);
    await nextTurn();
    expect(log.slice(1)).toEqual(['new: data: token\n\n', 'old: data: token\n\n']);
    // From then on the newcomer is an ordinary stream: arrival order.
    streaming.push(TOKEN);
    fresh.push(TOKEN);
    await nextTurn();
    expect(log.slice(3)).toEqual(['old: data: token\n\n', 'new: data: token\n\n']);
  });
});

const TOKEN = { kind: 'text' } as unknown as GenEvent;

/** A RawSseWriter whose socket writes land in `log`, named. */
function writer(name: string, log: string[]): RawSseWriter {
  let head = false;
  const raw: RawResponse = {
    get headersSent() {
      return head;
    },
    closed: false,
    get sent() {
      return new Response(null);
    },
    writeHead: () => {
      head = true;
    },
    flushHead: () => log.push(`${name}: head`),
    idle: true,
    write: (chunk: Buffer) => {
      log.push(`${name}: ${chunk.toString()}`);
      return true;
    },
    end: () => log.push(`${name}: end`),
    destroy: () => log.push(`${name}: destroy`),
    onDrain: () => {},
  };
  const enc: SseEncoder = { event: () => 'data: token\n\n', end: () => 'data: [DONE]\n\n', error: () => 'data: {"error":"x"}\n\n' };
  return new RawSseWriter(raw, enc, { headers: {}, lazyHead: false, errorResponse: () => new Response(null, { status: 500 }), onClose: () => {} });
}
