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

  it('random appends, takes and slow sockets: every stream gets its bytes, held bytes never change', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const texts = ['a', 'héllo', '世界', '🎉🎉', 'x'.repeat(700), '€'.repeat(400), 'y'.repeat(5000)];
    interface Sim {
      p: FrameBytes;
      expected: string;
      /** Taken but not yet "written" by a slow socket: bytes and their copy at take time. */
      inFlight: { buf: Buffer; copy: Buffer }[];
    }
    const sims: Sim[] = Array.from({ length: 40 }, () => ({ p: new FrameBytes(), expected: '', inFlight: [] }));
    for (let step = 0; step < 4000; step++) {
      const s = sims[rnd(sims.length)];
      const op = rnd(10);
      if (op < 6) {
        const f = frame(step, texts[rnd(texts.length)]);
        s.p.append(f);
        s.expected += f;
      } else if (op < 8 && s.p.size > 0) {
        // Half the takes framed as an HTTP chunk (what a self-framing response writes).
        const chunked = rnd(2) === 0;
        const size = s.p.size;
        const buf = s.p.take(chunked);
        const want = Buffer.from(s.expected);
        expect(buf.equals(chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), want, Buffer.from('\r\n')]) : want)).toBe(true);
        s.expected = '';
        // Half the sockets take everything at once; the others hold the bytes a while.
        if (rnd(2) === 0 && s.inFlight.length === 0) s.p.release();
        else s.inFlight.push({ buf, copy: Buffer.from(buf) });
      } else if (s.inFlight.length > 0) {
        // The slow socket wrote everything it held.
        for (const h of s.inFlight) expect(h.buf.equals(h.copy)).toBe(true);
        s.inFlight = [];
        s.p.release();
      }
      for (const o of sims) for (const h of o.inFlight) if (rnd(50) === 0) expect(h.buf.equals(h.copy)).toBe(true);
    }
    for (const s of sims) {
      for (const h of s.inFlight) expect(h.buf.equals(h.copy)).toBe(true);
      if (s.p.size > 0) expect(s.p.take().toString('utf8')).toBe(s.expected);
    }
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
