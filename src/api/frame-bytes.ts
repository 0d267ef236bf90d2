/**
 * A stream's SSE frames that are made but not yet written, as UTF-8 bytes outside the JS heap.
 *
 * Why not strings: frames wait to be written (until the flush scheduler's turn, or while a socket
 * pushes back), and at 256 streams the waiting frames are megabytes of live young objects that
 * every scavenge copies: measured at C = 256, 3-4 MB survived each scavenge, pauses of
 * 3-6 ms every 20-30 ms (GC ~16 % of the loop, its delay p99 ~11 ms). Encoded into a Buffer at once
 * they are one object per stream, and the write needs no UTF-8 measuring or encoding of its own.
 *
 * Memory comes in CHUNK-sized buffers from a pool: a stream takes one when it has something to
 * write and gives it back once the socket has taken every byte (the usual case: loopback and LAN
 * sockets take a write at once). Bytes a socket still holds are never overwritten: while it holds
 * some, appends go after them and a full buffer is replaced, not reused.
 *
 * The pool follows the load instead of a fixed cap. Paced streams (one token per stream per
 * engine step) all hold a buffer at once, between the engine message and the flush: with the old
 * cap of 256, 1,000 such streams allocated ~750 fresh 16 KB buffers per step (15,000/s at 50 ms
 * steps; allocUnsafeSlow + first-touch page faults were ~11 % of the gateway's loop, issue 30).
 * What a burst leaves behind is trimmed: every TRIM_MS, the buffers the pool never dipped into
 * since the last look are dropped, so an idle gateway keeps none.
 */

const CHUNK = 16 * 1024;
/** A bound on what the pool keeps (64 MB of mostly untouched address space), not a working size. */
const POOL_MAX = 4096;
/** How often unused pooled buffers are dropped. */
const TRIM_MS = 5000;
const pool: Buffer[] = [];
/** The fewest buffers the pool held since the last trim: that many were not needed all along. */
let lowWater = 0;
let trimTimer: NodeJS.Timeout | null = null;
/** Frames up to this many UTF-16 units reserve their worst case instead of being measured. */
const SMALL_FRAME = 4096;

function takeChunk(): Buffer {
  const buf = pool.pop();
  if (buf === undefined) return Buffer.allocUnsafeSlow(CHUNK);
  if (pool.length < lowWater) lowWater = pool.length;
  return buf;
}

function giveBack(buf: Buffer): void {
  if (pool.length >= POOL_MAX) return;
  pool.push(buf);
  if (trimTimer === null) armTrim();
}

function armTrim(): void {
  lowWater = pool.length;
  trimTimer = setTimeout(trim, TRIM_MS);
  // Trimming never keeps the process alive.
  trimTimer.unref();
}

function trim(): void {
  trimTimer = null;
  // The oldest entries (bottom of the stack) are the ones that sat unused.
  if (lowWater > 0) pool.splice(0, lowWater);
  if (pool.length > 0) armTrim();
}

/** Buffers pooled right now (tests). */
export function pooledFrameBuffers(): number {
  return pool.length;
}

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
    if (buf.length === CHUNK) giveBack(buf);
    this.buf = null;
    this.start = this.end = 0;
  }

  private grow(need: number): Buffer {
    const kept = this.end - this.start;
    const size = kept + need <= CHUNK ? CHUNK : 2 * (kept + need);
    const next = size === CHUNK ? takeChunk() : Buffer.allocUnsafeSlow(size);
    if (kept > 0) this.buf!.copy(next, 0, this.start, this.end);
    // The old buffer is not pooled: the socket may still be writing from it.
    this.buf = next;
    this.start = 0;
    this.end = kept;
    return next;
  }
}
