/**
 * A small msgpack writer into one growable Buffer, shared by the engine dialects.
 *
 * Why not @msgpack/msgpack's Encoder: JS numbers do not say whether they are ints or floats, and
 * the engines' decoders care (msgspec rejects a float where an int is declared, vLLM wants float64
 * for float fields even when the value is integral, e.g. temperature 0.0 → `cb 00…`). Here the
 * caller picks the wire type per field. It also writes int-keyed maps (logit_bias) and map16
 * headers on demand, which the library cannot.
 *
 * Usage: `w.reset()`, write values, then `w.toBuffer()` copies the exact bytes out (the internal
 * buffer is reused by the next message).
 * Integers are written in their smallest form, exactly like msgspec/msgpack-python.
 */

const MAX_HEADER = 5; // map32/array32 header: 1 tag byte + 4 length bytes
const TWO_32 = 0x1_0000_0000;

/** Options for {@link MsgpackWriter.mapHeader}. */
export interface MapHeaderOptions {
  /** Write `de NN NN` even for ≤ 15 entries, as msgspec does for structs with > 15 fields. */
  force16?: boolean;
}

export class MsgpackWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly initialCapacity: number;

  /**
   * @param initialCapacity starting size of the reused buffer.
   * @param maxRetained a buffer grown beyond this is dropped on `reset()` so one huge message does
   *   not pin memory for the life of the process.
   */
  constructor(
    initialCapacity = 1024,
    private readonly maxRetained = 1 << 20,
  ) {
    this.initialCapacity = Math.max(16, initialCapacity);
    this.buf = Buffer.allocUnsafe(this.initialCapacity);
  }

  /** Bytes written since the last reset. */
  get length(): number {
    return this.pos;
  }

  reset(): this {
    if (this.buf.length > this.maxRetained) this.buf = Buffer.allocUnsafe(this.initialCapacity);
    this.pos = 0;
    return this;
  }

  /** A copy of the bytes written so far: safe to keep and to hand to a socket. */
  toBuffer(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  nil(): this {
    this.ensure(1);
    this.buf[this.pos++] = 0xc0;
    return this;
  }

  bool(v: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = v ? 0xc3 : 0xc2;
    return this;
  }

  /** An integer in its smallest encoding. Throws on a non-integer or an unsafe JS integer. */
  int(n: number): this {
    if (!Number.isSafeInteger(n)) throw new RangeError(`msgpack int: ${n} is not a safe integer`);
    this.ensure(9);
    const b = this.buf;
    let p = this.pos;
    if (n >= 0) {
      if (n < 0x80) {
        b[p++] = n;
      } else if (n < 0x100) {
        b[p++] = 0xcc;
        b[p++] = n;
      } else if (n < 0x10000) {
        b[p++] = 0xcd;
        b[p++] = n >>> 8;
        b[p++] = n & 0xff;
      } else if (n < TWO_32) {
        b[p++] = 0xce;
        b.writeUInt32BE(n, p);
        p += 4;
      } else {
        b[p++] = 0xcf;
        b.writeUInt32BE(Math.floor(n / TWO_32), p);
        b.writeUInt32BE(n % TWO_32, p + 4);
        p += 8;
      }
    } else if (n >= -32) {
      b[p++] = n & 0xff; // negative fixint 0xe0..0xff
    } else if (n >= -0x80) {
      b[p++] = 0xd0;
      b.writeInt8(n, p);
      p += 1;
    } else if (n >= -0x8000) {
      b[p++] = 0xd1;
      b.writeInt16BE(n, p);
      p += 2;
    } else if (n >= -0x8000_0000) {
      b[p++] = 0xd2;
      b.writeInt32BE(n, p);
      p += 4;
    } else {
      b[p++] = 0xd3;
      b.writeBigInt64BE(BigInt(n), p);
      p += 8;
    }
    this.pos = p;
    return this;
  }

  /** A 64-bit integer beyond JS-safe range (e.g. a uint64 call id); smallest form, like `int`. */
  bigint(n: bigint): this {
    if (n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)) {
      return this.int(Number(n));
    }
    this.ensure(9);
    if (n > 0n) {
      if (n >= 1n << 64n) throw new RangeError(`msgpack int: ${n} exceeds uint64`);
      this.buf[this.pos++] = 0xcf;
      this.buf.writeBigUInt64BE(n, this.pos);
    } else {
      if (n < -(1n << 63n)) throw new RangeError(`msgpack int: ${n} is below int64`);
      this.buf[this.pos++] = 0xd3;
      this.buf.writeBigInt64BE(n, this.pos);
    }
    this.pos += 8;
    return this;
  }

  /** Always `cb` + 8 bytes: what msgspec writes for every Python float, integral or not. */
  float64(x: number): this {
    this.ensure(9);
    this.buf[this.pos] = 0xcb;
    this.buf.writeDoubleBE(x, this.pos + 1);
    this.pos += 9;
    return this;
  }

  /** `ca` + 4 bytes. msgspec never emits it; only serde-style encoders (SMG's Rust port) do. */
  float32(x: number): this {
    this.ensure(5);
    this.buf[this.pos] = 0xca;
    this.buf.writeFloatBE(x, this.pos + 1);
    this.pos += 5;
    return this;
  }

  /** A UTF-8 str with the smallest header for its byte length (fixstr/str8/str16/str32). */
  str(s: string): this {
    const len = s.length;
    // Fast path: short ASCII (request ids, keys, dtype names) without a UTF-8 encoder call.
    if (len < 32) {
      this.ensure(1 + len * 3);
      const b = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[start + i] = c;
      }
      if (i === len) {
        b[this.pos] = 0xa0 | len;
        this.pos = start + len;
        return this;
      }
    }
    // General path: write the bytes after the widest header the string could need, then slide
    // them left if the real byte length needs a shorter header (no temporary allocation).
    const maxBytes = len * 3;
    const guess = strHeaderSize(maxBytes);
    this.ensure(guess + maxBytes);
    const n = this.buf.write(s, this.pos + guess, 'utf8');
    const real = strHeaderSize(n);
    if (real !== guess) this.buf.copyWithin(this.pos + real, this.pos + guess, this.pos + guess + n);
    this.writeStrHeader(n);
    this.pos += n;
    return this;
  }

  private writeStrHeader(n: number): void {
    const b = this.buf;
    const p = this.pos;
    if (n < 32) {
      b[p] = 0xa0 | n;
      this.pos = p + 1;
    } else if (n < 0x100) {
      b[p] = 0xd9;
      b[p + 1] = n;
      this.pos = p + 2;
    } else if (n < 0x10000) {
      b[p] = 0xda;
      b.writeUInt16BE(n, p + 1);
      this.pos = p + 3;
    } else {
      b[p] = 0xdb;
      b.writeUInt32BE(n, p + 1);
      this.pos = p + 5;
    }
  }

  /** bin8/16/32 — never use for str fields (vLLM rejects bin where it expects str). */
  bin(data: Uint8Array): this {
    const n = data.byteLength;
    this.ensure(5 + n);
    const b = this.buf;
    if (n < 0x100) {
      b[this.pos++] = 0xc4;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = 0xc5;
      b.writeUInt16BE(n, this.pos);
      this.pos += 2;
    } else {
      b[this.pos++] = 0xc6;
      b.writeUInt32BE(n, this.pos);
      this.pos += 4;
    }
    b.set(data, this.pos);
    this.pos += n;
    return this;
  }

  arrayHeader(n: number): this {
    this.ensure(5);
    this.pos = writeContainerHeader(this.buf, this.pos, n, 0x90, 0xdc, false);
    return this;
  }

  mapHeader(n: number, opts?: MapHeaderOptions): this {
    this.ensure(5);
    this.pos = writeContainerHeader(this.buf, this.pos, n, 0x80, 0xde, opts?.force16 === true);
    return this;
  }

  /**
   * Reserve room for an array/map header whose count is not known yet; returns a mark for
   * `endArray`/`endMap`. Lets a caller write optional entries in one pass.
   */
  beginContainer(): number {
    this.ensure(MAX_HEADER);
    const mark = this.pos;
    this.pos += MAX_HEADER;
    return mark;
  }

  endArray(mark: number, count: number): this {
    return this.patchHeader(mark, count, 0x90, 0xdc, false);
  }

  endMap(mark: number, count: number, opts?: MapHeaderOptions): this {
    return this.patchHeader(mark, count, 0x80, 0xde, opts?.force16 === true);
  }

  private patchHeader(mark: number, count: number, fix: number, tag16: number, force16: boolean): this {
    const bodyStart = mark + MAX_HEADER;
    const headerEnd = writeContainerHeader(this.buf, mark, count, fix, tag16, force16);
    if (headerEnd !== bodyStart) {
      this.buf.copyWithin(headerEnd, bodyStart, this.pos);
      this.pos -= bodyStart - headerEnd;
    }
    return this;
  }

  /** fixext1/2/4/8/16 when the length allows, else ext8/16/32 (msgspec's choice too). */
  ext(type: number, data: Uint8Array): this {
    const n = data.byteLength;
    this.ensure(6 + n);
    const b = this.buf;
    const fixTag = n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : n === 16 ? 0xd8 : 0;
    if (fixTag !== 0) {
      b[this.pos++] = fixTag;
    } else if (n < 0x100) {
      b[this.pos++] = 0xc7;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = 0xc8;
      b.writeUInt16BE(n, this.pos);
      this.pos += 2;
    } else {
      b[this.pos++] = 0xc9;
      b.writeUInt32BE(n, this.pos);
      this.pos += 4;
    }
    b.writeInt8(type, this.pos++);
    b.set(data, this.pos);
    this.pos += n;
    return this;
  }

  /** Append bytes that are already msgpack (e.g. a pre-encoded constant key). */
  raw(bytes: Uint8Array): this {
    this.ensure(bytes.byteLength);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.byteLength;
    return this;
  }

  /** An array of ints (token ids); throws on any non-integer element. */
  intArray(values: readonly number[]): this {
    return this.idArray(values, false);
  }

  /** An array of non-negative ints; throws on a negative, fractional or unsafe element. */
  uintArray(values: readonly number[]): this {
    return this.idArray(values, true);
  }

  /**
   * A prompt's ids (131k of them for a long prompt) in one tight loop: room for the common case
   * (every id below 2^32: at most 5 bytes) is made once and each id is written inline, the same
   * bytes `int` writes; anything else goes through `int` (its checks, its errors). Per-id calls
   * with their own checks and growth test took ~3-5 ms of the event loop for 131k ids.
   */
  private idArray(values: readonly number[], unsigned: boolean): this {
    const n = values.length;
    this.arrayHeader(n);
    this.ensure(n * 5);
    let b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v >>> 0 === v) {
        if (v < 0x80) {
          b[p++] = v;
        } else if (v < 0x100) {
          b[p++] = 0xcc;
          b[p++] = v;
        } else if (v < 0x10000) {
          b[p++] = 0xcd;
          b[p++] = v >>> 8;
          b[p++] = v & 0xff;
        } else {
          b[p++] = 0xce;
          b[p++] = v >>> 24;
          b[p++] = (v >>> 16) & 0xff;
          b[p++] = (v >>> 8) & 0xff;
          b[p++] = v & 0xff;
        }
        continue;
      }
      if (unsigned && !(v >= 0)) throw new RangeError(`msgpack uint: ${v} is negative or not a number`);
      this.pos = p;
      this.int(v);
      // `int` may have grown the buffer; keep room for the rest at 5 bytes each.
      this.ensure((n - i - 1) * 5);
      b = this.buf;
      p = this.pos;
    }
    this.pos = p;
    return this;
  }

  strArray(values: readonly string[]): this {
    this.arrayHeader(values.length);
    for (let i = 0; i < values.length; i++) this.str(values[i]);
    return this;
  }

  /**
   * A dynamically typed value, for free-form payloads (JSON schemas, utility args, config maps):
   * null/undefined → nil, safe integers → int, other numbers → float64, bigint → int,
   * Uint8Array → bin, arrays, `Map`s (keys keep their JS type, so int keys stay ints), and plain
   * objects (string keys, own enumerable properties). Do not use it for typed struct fields.
   */
  value(v: unknown): this {
    if (v === null || v === undefined) return this.nil();
    switch (typeof v) {
      case 'boolean':
        return this.bool(v);
      case 'number':
        return Number.isSafeInteger(v) ? this.int(v) : this.float64(v);
      case 'bigint':
        return this.bigint(v);
      case 'string':
        return this.str(v);
      case 'object':
        break;
      default:
        throw new TypeError(`msgpack: cannot encode a ${typeof v}`);
    }
    if (Array.isArray(v)) {
      this.arrayHeader(v.length);
      for (const item of v) this.value(item);
      return this;
    }
    if (v instanceof Uint8Array) return this.bin(v);
    if (v instanceof Map) {
      this.mapHeader(v.size);
      for (const [k, item] of v) this.value(k).value(item);
      return this;
    }
    const keys = Object.keys(v);
    this.mapHeader(keys.length);
    const rec = v as Record<string, unknown>;
    for (const k of keys) this.str(k).value(rec[k]);
    return this;
  }
}

function strHeaderSize(byteLength: number): number {
  return byteLength < 32 ? 1 : byteLength < 0x100 ? 2 : byteLength < 0x10000 ? 3 : 5;
}

/** Writes an array (fix 0x90) or map (fix 0x80) header at `p`; returns the position after it. */
function writeContainerHeader(b: Buffer, p: number, n: number, fix: number, tag16: number, force16: boolean): number {
  if (!Number.isInteger(n) || n < 0 || n >= TWO_32) throw new RangeError(`msgpack: bad container length ${n}`);
  if (n < 16 && !force16) {
    b[p] = fix | n;
    return p + 1;
  }
  if (n < 0x10000) {
    b[p] = tag16;
    b.writeUInt16BE(n, p + 1);
    return p + 3;
  }
  b[p] = tag16 + 1; // array32 0xdd / map32 0xdf
  b.writeUInt32BE(n, p + 1);
  return p + 5;
}

/** Encode one str once (e.g. a constant map key) so hot paths can `raw()` it. */
export function encodeStr(s: string): Buffer {
  return new MsgpackWriter(s.length * 3 + 8).str(s).toBuffer();
}

/** Convenience for one-off values: a fresh writer, `fill` writes, returns the exact bytes. */
export function encodeWith(fill: (w: MsgpackWriter) => void, initialCapacity = 256): Buffer {
  const w = new MsgpackWriter(initialCapacity);
  fill(w);
  return w.toBuffer();
}
