/**
 * A stream's SSE frames that are made but not yet written, as UTF-8 bytes outside the JS heap.
 *
 * Why not strings: frames wait to be written (until the flush scheduler's turn, or while a socket
 * pushes back), and at 256 streams the waiting frames are megabytes of live young objects that
 * every scavenge copies: measured at C = 256, 3-4 MB survived each scavenge, pauses of
 * 3-6 ms every 20-30 ms (GC ~16 % of the loop, its delay p99 ~11 ms). Encoded into a Buffer at once
 * they are one object per stream, and the write needs no UTF-8 measuring or encoding of its own.
 *
 * Where the bytes go. A stream with nothing pending and nothing left with its socket writes its
 * next frames into a shared arena, back to back with the other streams' (paced streams, one token
 * per stream per engine step, each write a few hundred bytes there and the flush hands each its
 * slice). A stream whose next event comes after other streams wrote moves its few pending bytes
 * to the arena's end; only one that needs more (several KB pending, a full arena) moves to a
 * private CHUNK-sized buffer from a pool. An arena is reused from its start once every stream that wrote into it released it (the
 * socket took everything): no region a socket may still be writing from is ever overwritten.
 *
 * Why (issue 30, 1,000 paced streams at 50 ms steps): with a private 16 KB buffer per stream and a
 * pool capped at 256, every step allocated ~750 fresh buffers (allocUnsafeSlow + GC: ~11 % of the
 * loop); a pool big enough for every stream still kept 16 KB of address space per open stream
 * (115 buffers, 1.7 MB, in a heap diff at 300 streams). The arena holds one step's frames of all
 * streams: tens of bytes per stream.
 *
 * What a burst leaves behind is trimmed: every TRIM_MS, the pooled buffers the pool never dipped
 * into since the last look are dropped, and an arena grown past its first size is let go when
 * nothing is in it, so an idle gateway keeps neither.
 */

import { writeJsonString } from './json-bytes.js';

const CHUNK = 16 * 1024;
/** A bound on what the pool keeps (64 MB of mostly untouched address space), not a working size. */
const POOL_MAX = 4096;
/** How often unused pooled buffers (and an oversized idle arena) are dropped. */
const TRIM_MS = 5000;
/** The first arena's size; each arena that fills while in use is followed by one twice as big. */
const ARENA_MIN = 64 * 1024;
const ARENA_MAX = 1024 * 1024;
/** Bigger writes go straight to a private buffer. */
const ARENA_FRAME_MAX = 4 * 1024;
/**
 * A stream moves its pending bytes to the arena's end only while they are this few: each move
 * copies them, and a stream with many events in one turn (a saturated engine) would copy its
 * growing backlog again for each.
 */
const RELOCATE_MAX = 2048;
/**
 * Room kept before each region of pending bytes for an HTTP chunk-size line (up to 8 hex digits
 * and CRLF) and after it for the chunk's CRLF: take(true) frames the region in place.
 */
const HEAD_ROOM = 10;
const TAIL_ROOM = 2;
/** Frames up to this many UTF-16 units reserve their worst case instead of being measured. */
const SMALL_FRAME = 4096;

const pool: Buffer[] = [];
/** The fewest buffers the pool held since the last trim: that many were not needed all along. */
let lowWater = 0;
let trimTimer: NodeJS.Timeout | null = null;

/** A buffer streams write into back to back; `users` hold a region of it (pending or with a socket). */
interface Arena {
  readonly buf: Buffer;
  /** Next free byte. */
  pos: number;
  users: number;
}

let arena: Arena | null = null;

function takeChunk(): Buffer {
  const buf = pool.pop();
  if (buf === undefined) return Buffer.allocUnsafeSlow(CHUNK);
  if (pool.length < lowWater) lowWater = pool.length;
  return buf;
}

function giveBack(buf: Buffer): void {
  if (pool.length >= POOL_MAX) return;
  pool.push(buf);
  armTrim();
}

/** An arena with room for `need` bytes at its `pos`. */
function arenaFor(need: number): Arena {
  const a = arena;
  if (a !== null) {
    if (a.pos + need <= a.buf.length) return a;
    if (a.users === 0) {
      a.pos = 0;
      return a;
    }
  }
  // Full and in use: a new one, bigger (the old one is dropped by its last user).
  const size = a === null ? ARENA_MIN : Math.min(ARENA_MAX, 2 * a.buf.length);
  arena = { buf: Buffer.allocUnsafeSlow(size), pos: 0, users: 0 };
  if (size > ARENA_MIN) armTrim();
  return arena;
}

function leaveArena(a: Arena): void {
  // The last user of the current arena gone: it is written from its start again.
  if (--a.users === 0 && a === arena) a.pos = 0;
}

function armTrim(): void {
  if (trimTimer !== null) return;
  lowWater = pool.length;
  trimTimer = setTimeout(trim, TRIM_MS);
  // Trimming never keeps the process alive.
  trimTimer.unref();
}

function trim(): void {
  trimTimer = null;
  // The oldest entries (bottom of the stack) are the ones that sat unused.
  if (lowWater > 0) pool.splice(0, lowWater);
  if (arena !== null && arena.users === 0 && arena.buf.length > ARENA_MIN) arena = null;
  if (pool.length > 0 || (arena !== null && arena.buf.length > ARENA_MIN)) armTrim();
}

/** Buffers pooled right now, and the current arena's size (tests). */
export function frameMemory(): { pooled: number; arenaBytes: number } {
  return { pooled: pool.length, arenaBytes: arena?.buf.length ?? 0 };
}

export class FrameBytes {
  private buf: Buffer | null = null;
  /** First byte not yet handed to the socket. */
  private start = 0;
  /** Next free byte. */
  private end = 0;
  /** The arena `buf` is, while this stream writes into it. */
  private arena: Arena | null = null;
  /** An arena this stream left for a private buffer while its socket may still hold bytes there. */
  private held: Arena | null = null;

  /** Bytes appended and not yet taken. */
  get size(): number {
    return this.end - this.start;
  }

  append(frames: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units);
    // a frame too big for that bound to be cheap (a long tool call's arguments) is measured.
    const need = frames.length <= SMALL_FRAME ? frames.length * 3 : Buffer.byteLength(frames);
    const buf = this.reserve(need);
    this.commit(buf.write(frames, this.end));
  }

  /**
   * A frame made of fixed bytes around one JSON string: `prefix`, then `text` as JSON.stringify
   * writes it (quotes and escapes), then `suffix`. Every token frame of a streamed answer has this
   * shape; writing the fixed parts as bytes spares building the frame as a string (a rope that
   * V8 flattens again to encode it: ~0.6 µs per frame at 1,000 paced streams, issue 30).
   */
  appendAround(prefix: Uint8Array, text: string, suffix: Uint8Array): void {
    // JSON.stringify writes at most 6 bytes per UTF-16 unit (\u00XX, or a lone surrogate's \uDXXX).
    const buf = this.reserve(prefix.length + 2 + 6 * text.length + suffix.length);
    let pos = this.end;
    buf.set(prefix, pos);
    pos = writeJsonString(buf, pos + prefix.length, text);
    buf.set(suffix, pos);
    this.commit(pos + suffix.length - this.end);
  }

  /**
   * Room for `need` more bytes at `this.end` (in the arena, or a private buffer); the caller
   * writes them there and then calls commit() with how many it wrote. A new region (nothing
   * pending) starts HEAD_ROOM bytes on, and TAIL_ROOM bytes stay free after the data: take(true)
   * writes the HTTP chunk framing there.
   */
  private reserve(need: number): Buffer {
    const total = need + TAIL_ROOM;
    const buf = this.buf;
    const empty = this.start === this.end;
    if (buf === null && need <= ARENA_FRAME_MAX && this.held === null) {
      const a = arenaFor(HEAD_ROOM + total);
      a.users++;
      this.arena = a;
      this.buf = a.buf;
      this.start = this.end = a.pos + HEAD_ROOM;
      a.pos = this.end;
      return a.buf;
    }
    const a = this.arena;
    if (a !== null) {
      // Still the arena's last writer: the frames go on after its own (after what its socket has,
      // when nothing is pending: a new region).
      if (empty) {
        if (a.pos === this.end && this.end + HEAD_ROOM + total <= a.buf.length) {
          this.start = this.end = this.end + HEAD_ROOM;
          a.pos = this.end;
          return a.buf;
        }
      } else if (a.pos === this.end + TAIL_ROOM && this.end + total <= a.buf.length) {
        return a.buf;
      }
      // Others wrote since (a second event in one turn, e.g. engine messages read together after
      // a stall): a few pending frames move to the arena's end rather than to a private buffer.
      // Bytes already with the socket stay where they are: this stream still counts as a user.
      const kept = this.end - this.start;
      if (kept + need <= RELOCATE_MAX && (a === arena || this.held === null)) {
        // The current arena (this one, unless it filled up while a socket held bytes in it).
        const to = arenaFor(HEAD_ROOM + kept + total);
        if (to !== a) {
          // This stream stays counted in its old arena until release(), as its socket may still
          // hold bytes there; it counts in the new one too.
          this.held = a;
          this.arena = to;
          this.buf = to.buf;
          to.users++;
        }
        const at = to.pos + HEAD_ROOM;
        if (kept > 0) a.buf.copy(to.buf, at, this.start, this.end);
        this.start = at;
        this.end = at + kept;
        // Claimed now: the caller's bytes follow these.
        to.pos = this.end;
        return to.buf;
      }
      return this.grow(need);
    }
    if (buf === null) return this.grow(need);
    if (empty) {
      if (this.end + HEAD_ROOM + total > buf.length) return this.grow(need);
      this.start = this.end = this.end + HEAD_ROOM;
      return buf;
    }
    return this.end + total > buf.length ? this.grow(need) : buf;
  }

  /** `n` bytes were written at `this.end` (after reserve()). */
  private commit(n: number): void {
    this.end += n;
    // In the arena the next free byte follows them (and the room for a chunk's CRLF).
    if (this.arena !== null) this.arena.pos = this.end + TAIL_ROOM;
  }

  /**
   * The bytes not yet handed out; from now on they belong to the socket. With `chunked`, framed
   * as one HTTP/1.1 chunk (`<size in hex>\r\n<bytes>\r\n`, what Node's chunked encoding writes for
   * one write), in place: the response then writes one buffer instead of four.
   */
  take(chunked = false): Buffer {
    const buf = this.buf!;
    const { start, end } = this;
    let out: Buffer;
    if (chunked && end > start) {
      let p = start - 2;
      buf[p] = 0x0d;
      buf[p + 1] = 0x0a;
      // Lowercase hex without leading zeros, as Node writes it (Number#toString(16)).
      for (let size = end - start; size > 0; size >>>= 4) {
        const d = size & 15;
        buf[--p] = d < 10 ? 0x30 + d : 0x57 + d;
      }
      buf[end] = 0x0d;
      buf[end + 1] = 0x0a;
      out = buf.subarray(p, end + 2);
    } else {
      out = buf.subarray(start, end);
    }
    // Past the tail room too: a region's framing bytes are the socket's as well.
    this.start = this.end = end + TAIL_ROOM;
    return out;
  }

  /**
   * The socket holds none of this stream's bytes any more: the buffer (or arena region) can serve
   * another stream. Only when nothing is pending.
   */
  release(): void {
    const buf = this.buf;
    if (this.start !== this.end) return;
    if (this.held !== null) {
      leaveArena(this.held);
      this.held = null;
    }
    if (buf === null) return;
    if (this.arena !== null) {
      leaveArena(this.arena);
      this.arena = null;
    } else if (buf.length === CHUNK) {
      giveBack(buf);
    }
    this.buf = null;
    this.start = this.end = 0;
  }

  private grow(need: number): Buffer {
    const kept = this.end - this.start;
    const room = HEAD_ROOM + kept + need + TAIL_ROOM;
    const size = room <= CHUNK ? CHUNK : 2 * room;
    const next = size === CHUNK ? takeChunk() : Buffer.allocUnsafeSlow(size);
    if (kept > 0) this.buf!.copy(next, HEAD_ROOM, this.start, this.end);
    if (this.arena !== null) {
      // The socket may still hold this stream's earlier bytes in the arena: the region stays
      // counted until release() says the socket took everything.
      this.held = this.arena;
      this.arena = null;
    }
    // An old private buffer is not pooled: the socket may still be writing from it.
    this.buf = next;
    this.start = HEAD_ROOM;
    this.end = HEAD_ROOM + kept;
    return next;
  }
}
