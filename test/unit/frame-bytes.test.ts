import { describe, expect, it, vi } from 'vitest';
import { FrameBytes, frameMemory } from '../../src/api/frame-bytes.js';

const frame = (i: number, text = `tok${i}`) => `data: {"i":${i},"content":${JSON.stringify(text)}}\n\n`;

describe('FrameBytes: pending SSE frames as UTF-8 outside the heap', () => {
  it('hands out exactly the UTF-8 bytes of the frames appended since the last take', () => {
    const p = new FrameBytes();
    expect(p.size).toBe(0);
    p.append(frame(0, 'héllo — 世界 🎉'));
    p.append(frame(1));
    expect(p.size).toBeGreaterThan(0);
    const first = p.take();
    expect(first.toString('utf8')).toBe(frame(0, 'héllo — 世界 🎉') + frame(1));
    expect(first.length).toBe(Buffer.byteLength(frame(0, 'héllo — 世界 🎉') + frame(1)));
    expect(p.size).toBe(0);
    p.append(frame(2));
    expect(p.take().toString()).toBe(frame(2));
  });

  it('never overwrites bytes already handed to the socket, across buffer growth', () => {
    const p = new FrameBytes();
    p.append(frame(0));
    const held = p.take(); // a socket that has not written these yet
    const copy = Buffer.from(held);
    // Far more than one buffer's worth, some of it multi-byte, then a frame bigger than a buffer.
    let expected = '';
    for (let i = 1; i < 2000; i++) {
      const f = frame(i, i % 7 === 0 ? `ü${i}€` : `t${i}`);
      p.append(f);
      expected += f;
    }
    // Big frames are measured rather than given their worst case: ASCII, 3-byte and 4-byte text.
    for (const huge of [frame(-1, 'x'.repeat(40_000)), frame(-2, '€'.repeat(20_000)), frame(-3, '🎉'.repeat(5_000))]) {
      p.append(huge);
      expected += huge;
    }
    expect(p.take().toString()).toBe(expected);
    expect(held.equals(copy)).toBe(true);
  });

  it('gives its buffer back only when nothing is pending, and serves on afterwards', () => {
    const p = new FrameBytes();
    p.append(frame(0));
    p.release(); // pending: must keep the bytes
    expect(p.take().toString()).toBe(frame(0));
    p.release();
    expect(p.size).toBe(0);
    p.append(frame(1));
    expect(p.take().toString()).toBe(frame(1));
  });

  it('streams sharing the arena each get their own bytes, interleaved appends included', () => {
    const streams = Array.from({ length: 50 }, () => new FrameBytes());
    const expected = streams.map(() => '');
    for (let step = 0; step < 3; step++) {
      streams.forEach((p, i) => {
        const f = frame(i, `s${step}-é${i}`);
        p.append(f);
        expected[i] += f;
      });
    }
    // A second event of stream 0 after the others wrote: it moves out of the arena, bytes intact.
    streams[0].append(frame(999));
    expected[0] += frame(999);
    streams.forEach((p, i) => {
      expect(p.take().toString()).toBe(expected[i]);
      p.release();
    });
  });

  it('never overwrites arena bytes a socket still holds, while other streams write on', () => {
    const slow = new FrameBytes();
    slow.append(frame(0, 'held by a slow socket'));
    const held = slow.take(); // not released: the socket has not written it yet
    const copy = Buffer.from(held);
    for (let round = 0; round < 200; round++) {
      const others = Array.from({ length: 20 }, () => new FrameBytes());
      for (const [i, p] of others.entries()) p.append(frame(i, 'x'.repeat(200)));
      for (const p of others) {
        p.take();
        p.release();
      }
    }
    expect(held.equals(copy)).toBe(true);
    slow.release();
  });

  it('a stream whose arena was replaced moves on to the new one, leaving held bytes intact', () => {
    const slow = new FrameBytes();
    slow.append(frame(0, 'first'));
    const held = slow.take();
    const copy = Buffer.from(held);
    // Enough traffic to fill the arena while `slow` pins it: a new arena replaces it.
    for (let round = 0; round < 100; round++) {
      const p = new FrameBytes();
      p.append(frame(round, 'z'.repeat(1000)));
      p.take();
      p.release();
    }
    slow.append(frame(1, 'second'));
    slow.append(frame(2, 'third'));
    const other = new FrameBytes();
    other.append(frame(3, 'other'));
    expect(slow.take().toString()).toBe(frame(1, 'second') + frame(2, 'third'));
    expect(other.take().toString()).toBe(frame(3, 'other'));
    expect(held.equals(copy)).toBe(true);
    slow.release();
    other.release();
  });

  it('lets go of pooled buffers and a grown arena once they sat unused', async () => {
    vi.useFakeTimers();
    try {
      // A fresh module: its trim timer must be a fake one.
      vi.resetModules();
      const { FrameBytes, frameMemory } = await import('../../src/api/frame-bytes.js');
      // A burst: 300 streams with a second event each after the others wrote (private buffers),
      // and enough bytes through the arena to grow it.
      const streams = Array.from({ length: 300 }, () => new FrameBytes());
      for (const [i, p] of streams.entries()) p.append(frame(i, 'z'.repeat(1000)));
      for (const [i, p] of streams.entries()) p.append(frame(i, 'y'.repeat(3000)));
      for (const p of streams) {
        p.take();
        p.release();
      }
      // All but the last writer, which went on in the arena after its own bytes.
      expect(frameMemory().pooled).toBeGreaterThanOrEqual(299);
      expect(frameMemory().arenaBytes).toBeGreaterThan(64 * 1024);
      vi.advanceTimersByTime(20_000);
      expect(frameMemory().pooled).toBe(0);
      expect(frameMemory().arenaBytes).toBeLessThanOrEqual(64 * 1024);
    } finally {
      vi.useRealTimers();
    }
  });
});
