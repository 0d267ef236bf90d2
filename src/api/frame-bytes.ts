/**
 * A stream's SSE frames that are made but not yet written, as UTF-8 bytes outside the JS heap.
 *
 * Why not strings: frames wait to be written (until the flush scheduler's turn, or while a socket
 * pushes back), and at 256 streams the waiting frames are megabytes of live young objects that
 * every scavenge copies: measured at C = 256, 3-4 MB survived each scavenge, pauses of
 * 3-6 ms every 20-30 ms (GC ~16 % of the loop, its delay p99 ~11 ms). Encoded into a Buffer at once
 * they are one object per stream, and the write needs no UTF-8 measuring or encoding of its own.
 *
 * Memory comes in CHUNK-sized buffers from a small pool: a stream takes one when it has something
 * to write and gives it back once the socket has taken every byte (the usual case: loopback and
 * LAN sockets take a write at once). Bytes a socket still holds are never overwritten: while it
 * holds some, appends go after them and a full buffer is replaced, not reused.
 */

const CHUNK = 16 * 1024;
/** Buffers kept for reuse (4 MB): about one per stream with something pending at C = 256. */
const POOL_MAX = 256;
const pool: Buffer[] = [];
/** Frames up to this many UTF-16 units reserve their worst case instead of being measured. */
const SMALL_FRAME = 4096;

export class FrameBytes {
  private buf: Buffer | null = null;
  /** First byte not yet handed to the socket. */
  private start = 0;
  /** Next free byte. */
  private end = 0;

  /** Bytes appended and not yet taken. */
  get size(): number {
    return this.end - this.start;
  }

  append(frames: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units);
    // a frame too big for that bound to be cheap (a long tool call's arguments) is measured.
    const need = frames.length <= SMALL_FRAME ? frames.length * 3 : Buffer.byteLength(frames);
    const buf = this.buf !== null && this.end + need <= this.buf.length ? this.buf : this.grow(need);
    this.end += buf.write(frames, this.end);
  }

  /** The bytes not yet handed out; from now on they belong to the socket. */
  take(): Buffer {
    const out = this.buf!.subarray(this.start, this.end);
    this.start = this.end;
    return out;
  }

  /**
   * The socket holds none of this stream's bytes any more: the buffer can serve another stream.
   * Only when nothing is pending.
   */
  release(): void {
    const buf = this.buf;
    if (buf === null || this.start !== this.end) return;
    if (buf.length === CHUNK && pool.length < POOL_MAX) pool.push(buf);
    this.buf = null;
    this.start = this.end = 0;
  }

  private grow(need: number): Buffer {
    const kept = this.end - this.start;
    const size = kept + need <= CHUNK ? CHUNK : 2 * (kept + need);
    const next = size === CHUNK ? (pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK)) : Buffer.allocUnsafeSlow(size);
    if (kept > 0) this.buf!.copy(next, 0, this.start, this.end);
    // The old buffer is not pooled: the socket may still be writing from it.
    this.buf = next;
    this.start = 0;
    this.end = kept;
    return next;
  }
}
