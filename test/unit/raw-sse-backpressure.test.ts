import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { RawSseWriter } from '../../src/api/raw-sse.js';
import type { SseEncoder } from '../../src/api/sse.js';
import type { RawResponse } from '../../src/api/types.js';
import type { GenEvent } from '../../src/pipeline/events.js';

/**
 * A socket that keeps what it is given by reference, as a kernel that took only part of a write
 * leaves the rest to be sent from the caller's memory: until it drains, those bytes must not change.
 */
class SlowSocket implements RawResponse {
  readonly taken: { chunk: Buffer; copy: Buffer }[] = [];
  /** Chunks given but not yet sent (until the next drain). */
  private held: { chunk: Buffer; copy: Buffer }[] = [];
  /** Chunks whose bytes had changed by the time the socket sent them. */
  corrupted = 0;
  headersSent = false;
  closed = false;
  idle = true;
  private drain: (() => void) | null = null;
  get sent(): Response {
    return new Response(null);
  }
  writeHead(): void {
    this.headersSent = true;
  }
  flushHead(): void {}
  write(chunk: Buffer): boolean {
    const t = { chunk, copy: Buffer.from(chunk) };
    this.taken.push(t);
    this.held.push(t);
    this.idle = false;
    return false;
  }
  end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.taken.push({ chunk: Buffer.from(chunk), copy: Buffer.from(chunk) });
    this.closed = true;
  }
  destroy(): void {
    this.closed = true;
  }

  onDrain(cb: () => void): void {
    this.drain = cb;
  }
  /** Sends what it held (checking those bytes are still what it was given), then says so. */
  drained(): void {
    for (const t of this.held) if (!t.chunk.equals(t.copy)) this.corrupted++;
    this.held = [];
    this.idle = true;
    this.drain?.();
  }
  text(): string {
    return Buffer.concat(this.taken.map((t) => t.copy)).toString();
  }
}

let seq = 0;
const encoder: SseEncoder = {
  event: () => `data: {"n":${seq++}}\n\n`,
  end: () => 'data: [DONE]\n\n',
  error: () => '',
};
const TOKEN = { kind: 'text' } as unknown as GenEvent;

describe('RawSseWriter under backpressure', () => {
  it('never rewrites bytes a socket still holds, and loses or reorders nothing', async () => {
    seq = 0;
    const sock = new SlowSocket();
    // Another stream shares the buffer pool and keeps asking for memory meanwhile.
    const other = new SlowSocket();
    const a = new RawSseWriter(sock, encoder, { headers: {}, lazyHead: true, errorResponse: () => new Response(), onClose: () => {} });
    const b = new RawSseWriter(other, encoder, { headers: {}, lazyHead: true, errorResponse: () => new Response(), onClose: () => {} });
    for (let round = 0; round < 20; round++) {
      a.push(TOKEN);
      b.push(TOKEN);
      await nextTurn(); // the flush turn: each write is refused, the socket keeps the bytes
      for (let i = 0; i < 5; i++) b.push(TOKEN);
      await nextTurn();
      other.drained();
      sock.drained();
    }
    expect(sock.corrupted + other.corrupted).toBe(0);
    a.end();
    const frames = sock.text().split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const ns = frames.slice(0, -1).map((f) => (JSON.parse(f.slice(6)) as { n: number }).n);
    expect(ns).toHaveLength(20);
    expect([...ns].sort((x, y) => x - y)).toEqual(ns);
  });
});
