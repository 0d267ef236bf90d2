/**
 * The engine side's msgpack reader (used by the mock engine's strict decoders): it keeps the wire
 * TYPE of every value (int vs float vs bool, str vs bin, map key types), because the real engines
 * decode "as strictly as msgspec" and a fake must reject what they would reject.
 */
import { EXT_RAW_VIEW } from '../../engine/msgpack/reader.js';
import { WireDecodeError } from '../../engine/types.js';

/** A decoded value that remembers its msgpack wire type. */
export type TypedValue =
  | { t: 'nil' }
  | { t: 'bool'; v: boolean }
  /** bigint only when the value lies outside the JS safe-integer range. */
  | { t: 'int'; v: number | bigint }
  | { t: 'float'; v: number; bits: 32 | 64 }
  | { t: 'str'; v: string }
  | { t: 'bin'; v: Uint8Array }
  /**
   * `uints`: set when every element is a non-negative int in a 1-5 byte form (a prompt's token
   * ids); `v` is then built only when read.
   */
  | { t: 'array'; v: TypedValue[]; uints?: number[] }
  /** Entries in wire order; keys keep their own wire types. */
  | { t: 'map'; v: Array<[TypedValue, TypedValue]> }
  | { t: 'ext'; type: number; v: Uint8Array };

const MAX_DEPTH = 64;
const NIL: TypedValue = { t: 'nil' };
const TRUE: TypedValue = { t: 'bool', v: true };
const FALSE: TypedValue = { t: 'bool', v: false };

/**
 * Decode exactly one msgpack value from `bytes`, keeping wire types. Throws WireDecodeError on
 * truncation, reserved byte 0xc1, excessive nesting, or trailing bytes.
 */
export function readTyped(bytes: Uint8Array): TypedValue {
  const r = new TypedReader(bytes);
  const v = r.value(0);
  if (r.pos !== bytes.byteLength) {
    throw new WireDecodeError(`${bytes.byteLength - r.pos} trailing byte(s) after the msgpack value`);
  }
  return v;
}

/**
 * Arrays this long are tried as runs of unsigned ints first. A 131k-token prompt decoded to a
 * TypedValue object per id cost the mock engine ~6 ms of its loop per ADD, during which it stepped
 * no stream (the paced streams' gap p99 rose 1.5x with long prompts arriving, none of it the gateway's).
 */
const UINT_RUN_MIN = 256;

function uintArrayValue(uints: number[]): TypedValue {
  let items: TypedValue[] | null = null;
  return {
    t: 'array',
    uints,
    get v(): TypedValue[] {
      items ??= uints.map((x): TypedValue => ({ t: 'int', v: x }));
      return items;
    },
  };
}

class TypedReader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): void {
    if (this.pos + n > this.bytes.byteLength) throw new WireDecodeError('truncated msgpack value');
  }

  private u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  private u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  private take(n: number): Uint8Array {
    this.need(n);
    // A real copy with its own ArrayBuffer (Buffer#slice would be a view into the frame).
    const out = new Uint8Array(this.bytes.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  private text(n: number): string {
    this.need(n);
    const s = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return s;
  }

  private int64(signed: boolean): TypedValue {
    this.need(8);
    const big = signed ? this.view.getBigInt64(this.pos) : this.view.getBigUint64(this.pos);
    this.pos += 8;
    const safe = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER);
    return { t: 'int', v: safe ? Number(big) : big };
  }

  value(depth: number): TypedValue {
    if (depth > MAX_DEPTH) throw new WireDecodeError('msgpack nesting too deep');
    const b = this.u8();
    if (b < 0x80) return { t: 'int', v: b };
    if (b >= 0xe0) return { t: 'int', v: b - 0x100 };
    if (b <= 0x8f) return this.map(b & 0x0f, depth);
    if (b <= 0x9f) return this.array(b & 0x0f, depth);
    if (b <= 0xbf) return { t: 'str', v: this.text(b & 0x1f) };
    switch (b) {
      case 0xc0:
        return NIL;
      case 0xc2:
        return FALSE;
      case 0xc3:
        return TRUE;
      case 0xc4:
        return { t: 'bin', v: this.take(this.u8()) };
      case 0xc5:
        return { t: 'bin', v: this.take(this.u16()) };
      case 0xc6:
        return { t: 'bin', v: this.take(this.u32()) };
      case 0xc7:
        return this.ext(this.u8());
      case 0xc8:
        return this.ext(this.u16());
      case 0xc9:
        return this.ext(this.u32());
      case 0xca: {
        this.need(4);
        const v = this.view.getFloat32(this.pos);
        this.pos += 4;
        return { t: 'float', v, bits: 32 };
      }
      case 0xcb: {
        this.need(8);
        const v = this.view.getFloat64(this.pos);
        this.pos += 8;
        return { t: 'float', v, bits: 64 };
      }
      case 0xcc:
        return { t: 'int', v: this.u8() };
      case 0xcd:
        return { t: 'int', v: this.u16() };
      case 0xce:
        return { t: 'int', v: this.u32() };
      case 0xcf:
        return this.int64(false);
      case 0xd0: {
        this.need(1);
        return { t: 'int', v: this.view.getInt8(this.pos++) };
      }
      case 0xd1: {
        this.need(2);
        const v = this.view.getInt16(this.pos);
        this.pos += 2;
        return { t: 'int', v };
      }
      case 0xd2: {
        this.need(4);
        const v = this.view.getInt32(this.pos);
        this.pos += 4;
        return { t: 'int', v };
      }
      case 0xd3:
        return this.int64(true);
      case 0xd4:
        return this.ext(1);
      case 0xd5:
        return this.ext(2);
      case 0xd6:
        return this.ext(4);
      case 0xd7:
        return this.ext(8);
      case 0xd8:
        return this.ext(16);
      case 0xd9:
        return { t: 'str', v: this.text(this.u8()) };
      case 0xda:
        return { t: 'str', v: this.text(this.u16()) };
      case 0xdb:
        return { t: 'str', v: this.text(this.u32()) };
      case 0xdc:
        return this.array(this.u16(), depth);
      case 0xdd:
        return this.array(this.u32(), depth);
      case 0xde:
        return this.map(this.u16(), depth);
      case 0xdf:
        return this.map(this.u32(), depth);
      default:
        throw new WireDecodeError(`invalid msgpack byte 0x${b.toString(16)}`);
    }
  }

  private ext(n: number): TypedValue {
    this.need(1);
    const type = this.view.getInt8(this.pos++);
    return { t: 'ext', type, v: this.take(n) };
  }

  private array(n: number, depth: number): TypedValue {
    // Each element takes at least one byte: refuse absurd lengths before allocating.
    this.need(n);
    if (n >= UINT_RUN_MIN) {
      const uints = this.uintRun(n);
      if (uints) return uintArrayValue(uints);
    }
    const out: TypedValue[] = new Array<TypedValue>(n);
    for (let i = 0; i < n; i++) out[i] = this.value(depth + 1);
    return { t: 'array', v: out };
  }

  /**
   * `n` non-negative ints (fixint, uint8/16/32) read straight into numbers, or null (position
   * unchanged) at the first element of another kind: the generic path then reads them all.
   */
  private uintRun(n: number): number[] | null {
    const b = this.bytes;
    const end = b.byteLength;
    const out = new Array<number>(n);
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = b[p];
      if (c < 0x80) {
        out[i] = c;
        p += 1;
      } else if (c === 0xcc && p + 2 <= end) {
        out[i] = b[p + 1];
        p += 2;
      } else if (c === 0xcd && p + 3 <= end) {
        out[i] = (b[p + 1] << 8) | b[p + 2];
        p += 3;
      } else if (c === 0xce && p + 5 <= end) {
        out[i] = ((b[p + 1] << 24) >>> 0) + ((b[p + 2] << 16) | (b[p + 3] << 8) | b[p + 4]);
        p += 5;
      } else {
        return null;
      }
      if (p > end) return null;
    }
    this.pos = p;
    return out;
  }

  private map(n: number, depth: number): TypedValue {
    this.need(n * 2);
    const out: Array<[TypedValue, TypedValue]> = new Array<[TypedValue, TypedValue]>(n);
    for (let i = 0; i < n; i++) {
      const k = this.value(depth + 1);
      out[i] = [k, this.value(depth + 1)];
    }
    return { t: 'map', v: out };
  }
}

/**
 * Collapse a typed value into plain JS (what a dynamically typed decoder would give): maps with
 * str/int keys become objects, other maps become `Map`s; bigints stay bigints; ext 3 → bytes.
 */
export function toPlain(v: TypedValue): unknown {
  switch (v.t) {
    case 'nil':
      return null;
    case 'bool':
    case 'int':
    case 'float':
    case 'str':
    case 'bin':
      return v.v;
    case 'ext':
      return v.type === EXT_RAW_VIEW ? v.v : { extType: v.type, data: v.v };
    case 'array':
      return v.v.map(toPlain);
    case 'map': {
      if (v.v.every(([k]) => k.t === 'str')) {
        const obj: Record<string, unknown> = {};
        for (const [k, item] of v.v) {
          // defineProperty: a "__proto__" key must stay data, not replace the prototype.
          Object.defineProperty(obj, (k as { v: string }).v, {
            value: toPlain(item),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return obj;
      }
      return new Map(v.v.map(([k, item]) => [toPlain(k), toPlain(item)]));
    }
  }
}

/** msgspec's name for a wire type, for msgspec-like error messages. */
export function msgspecTypeName(v: TypedValue): string {
  switch (v.t) {
    case 'nil':
      return 'null';
    case 'bool':
      return 'bool';
    case 'int':
      return 'int';
    case 'float':
      return 'float';
    case 'str':
      return 'str';
    case 'bin':
      return 'bytes';
    case 'array':
      return 'array';
    case 'map':
      return 'object';
    case 'ext':
      return 'ext';
  }
}
