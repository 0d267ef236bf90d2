import { describe, expect, it } from 'vitest';
import { FrameBytes } from '../../src/api/frame-bytes.js';

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
});
