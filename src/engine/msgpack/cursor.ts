/**
 * A forward-only msgpack reader for the hot output plane: it reads the values a decoder expects
 * where it expects them (array headers, ints, strings, int arrays) straight from the frame, and
 * skips or hands whole sub-values to the general decoder only where they are rare (logprobs,
 * stats maps, utility results).
 *
 * Hand-written because the general decoder (@msgpack/msgpack) was 15% of the gateway's CPU at 64
 * streams: it builds every value through its generic state machine and decodes every string,
 * while an engine step is mostly "array of [request id, token ids, nil…]".
 */
import type { IdTable } from '../id-table.js';
import { WireDecodeError } from '../types.js';
import { decodeMsgpack } from './reader.js';

export class MsgpackCursor {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  private byte(): number {
    if (this.pos >= this.buf.length) throw new WireDecodeError('msgpack message ends too early');
    return this.buf[this.pos++];
  }

  /** True when the next value is a map (nothing consumed). */
  isMap(): boolean {
    const b = this.buf[this.pos];
    return (b >= 0x80 && b <= 0x8f) || b === 0xde || b === 0xdf;
  }

  /** True (and consumed) when the next value is nil. */
  nil(): boolean {
    if (this.buf[this.pos] === 0xc0) {
      this.pos++;
      return true;
    }
    return false;
  }

  /**
   * An array header: its length. `message` replaces the default "<what> is not an array" (made
   * only on failure: this runs for every request of every engine step).
   */
  arrayLength(what: string, message?: string): number {
    const b = this.byte();
    if (b >= 0x90 && b <= 0x9f) return b & 0x0f;
    if (b === 0xdc) return this.u16();
    if (b === 0xdd) return this.u32();
    this.pos--;
    return this.unexpected(message ?? `${what} is not an array`);
  }

  /** A map header: its number of pairs. */
  mapLength(what: string): number {
    const b = this.byte();
    if (b >= 0x80 && b <= 0x8f) return b & 0x0f;
    if (b === 0xde) return this.u16();
    if (b === 0xdf) return this.u32();
    this.pos--;
    return this.unexpected(`${what} is not a map`);
  }

  /** An integer of any msgpack width (within the safe range). */
  int(what: string): number {
    const b = this.byte();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    switch (b) {
      case 0xcc:
        return this.byte();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf:
        return this.u64(what);
      case 0xd0:
        return this.i8();
      case 0xd1:
        return this.i16();
      case 0xd2:
        return this.i32();
      case 0xd3:
        return this.i64(what);
    }
    this.pos--;
    return this.unexpected(`${what} is not an int`);
  }

  /** A number (int or float). */
  number(what: string): number {
    const b = this.buf[this.pos];
    if (b === 0xca) {
      this.pos++;
      const v = this.view.getFloat32(this.pos);
      this.pos += 4;
      return v;
    }
    if (b === 0xcb) {
      this.pos++;
      const v = this.view.getFloat64(this.pos);
      this.pos += 8;
      return v;
    }
    const isInt = b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xcf) || (b >= 0xd0 && b <= 0xd3);
    if (!isInt) return this.unexpected(`${what} is not a number`);
    return this.int(what);
  }

  /** A str that is usually one of `known` (a request id): returned without decoding when it is. */
  knownStr(known: IdTable | null, what: string): string {
    if (known) {
      const b = this.buf[this.pos];
      let len = -1;
      let at = this.pos + 1;
      if (b >= 0xa0 && b <= 0xbf) len = b & 0x1f;
      else if (b === 0xd9 && at < this.buf.length) len = this.buf[at++];
      if (len >= 0 && at + len <= this.buf.length) {
        const id = known.find(this.buf, at, len);
        if (id !== undefined) {
          this.pos = at + len;
          return id;
        }
      }
    }
    return this.str(what);
  }

  /** A str. ASCII (every request id the gateway mints) is sliced natively, without a UTF-8 decode. */
  str(what: string): string {
    const b = this.byte();
    let len: number;
    if (b >= 0xa0 && b <= 0xbf) len = b & 0x1f;
    else if (b === 0xd9) len = this.byte();
    else if (b === 0xda) len = this.u16();
    else if (b === 0xdb) len = this.u32();
    else {
      this.pos--;
      return this.unexpected(`${what} is not a string`);
    }
    const start = this.pos;
    const end = start + len;
    if (end > this.buf.length) throw new WireDecodeError(`${what}: string runs past the message`);
    this.pos = end;
    for (let i = start; i < end; i++) if (this.buf[i] >= 0x80) return this.buf.toString('utf8', start, end);
    return this.buf.toString('latin1', start, end);
  }

  /**
   * A map key (str) compared in place with `keys` (their UTF-8 bytes): the index of the one it
   * equals, or -1. Lets a decoder pick its few fields out of a big map without decoding any key.
   */
  keyIndex(keys: readonly Buffer[], what: string): number {
    const b = this.byte();
    let len: number;
    if (b >= 0xa0 && b <= 0xbf) len = b & 0x1f;
    else if (b === 0xd9) len = this.byte();
    else if (b === 0xda) len = this.u16();
    else if (b === 0xdb) len = this.u32();
    else {
      this.pos--;
      return this.unexpected(`${what}: a key is not a string`);
    }
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.buf.length) throw new WireDecodeError(`${what}: key runs past the message`);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (key.length === len && this.buf.compare(key, 0, len, start, start + len) === 0) return k;
    }
    return -1;
  }

  /** An array of ints (token ids). */
  intArray(what: string): number[] {
    const n = this.arrayLength(what);
    const out = new Array<number>(n);
    const buf = this.buf;
    for (let i = 0; i < n; i++) {
      const b = buf[this.pos];
      // Positive fixints and uint16/uint32 cover every vocabulary; the rest goes the long way (its
      // label is made only there: a template string per token was most of this loop's garbage).
      if (b <= 0x7f) {
        this.pos++;
        out[i] = b;
      } else if (b === 0xcd && this.pos + 3 <= buf.length) {
        out[i] = (buf[this.pos + 1] << 8) | buf[this.pos + 2];
        this.pos += 3;
      } else if (b === 0xce && this.pos + 5 <= buf.length) {
        out[i] = buf.readUInt32BE(this.pos + 1);
        this.pos += 5;
      } else out[i] = this.int(`${what}[${i}]`);
    }
    return out;
  }

  /** The next value, decoded by the general decoder (for rare, irregular values). */
  value(what: string): unknown {
    const start = this.pos;
    this.skip();
    return decodeMsgpack(this.buf.subarray(start, this.pos), what);
  }

  /** Skips one value of any type. */
  skip(): void {
    const b = this.byte();
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return;
    if (b >= 0xa0 && b <= 0xbf) return this.advance(b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return this.skipN(b & 0x0f);
    if (b >= 0x80 && b <= 0x8f) return this.skipN((b & 0x0f) * 2);
    switch (b) {
      case 0xcc:
      case 0xd0:
        this.pos += 1;
        return;
      case 0xcd:
      case 0xd1:
        this.pos += 2;
        return;
      case 0xce:
      case 0xd2:
      case 0xca:
        this.pos += 4;
        return;
      case 0xcf:
      case 0xd3:
      case 0xcb:
        this.pos += 8;
        return;
      case 0xd9:
      case 0xc4:
        return this.advance(this.byte());
      case 0xda:
      case 0xc5:
        return this.advance(this.u16());
      case 0xdb:
      case 0xc6:
        return this.advance(this.u32());
      case 0xdc:
        return this.skipN(this.u16());
      case 0xdd:
        return this.skipN(this.u32());
      case 0xde:
        return this.skipN(this.u16() * 2);
      case 0xdf:
        return this.skipN(this.u32() * 2);
      case 0xd4:
        this.pos += 2;
        return;
      case 0xd5:
        this.pos += 3;
        return;
      case 0xd6:
        this.pos += 5;
        return;
      case 0xd7:
        this.pos += 9;
        return;
      case 0xd8:
        this.pos += 17;
        return;
      // ext 8/16/32: length, then the type byte, then the data
      case 0xc7:
        return this.advance(this.byte() + 1);
      case 0xc8:
        return this.advance(this.u16() + 1);
      case 0xc9:
        return this.advance(this.u32() + 1);
    }
    throw new WireDecodeError(`invalid msgpack type byte 0x${b.toString(16)}`);
  }

  /**
   * A value of the wrong type. An ext value gets the ext codec's own refusal (vLLM's "Extension
   * type code N is not supported" for pickled objects), as the general decoder would report it.
   */
  private unexpected(message: string): never {
    const b = this.buf[this.pos];
    if ((b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9)) this.value(message);
    throw new WireDecodeError(message);
  }

  /** Moves past `n` bytes whose length was just read (read first: `pos += read()` would lose the read). */
  private advance(n: number): void {
    this.pos += n;
  }

  private skipN(n: number): void {
    for (let i = 0; i < n; i++) this.skip();
    if (this.pos > this.buf.length) throw new WireDecodeError('msgpack message ends too early');
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new WireDecodeError('msgpack message ends too early');
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

  private i8(): number {
    this.need(1);
    return this.view.getInt8(this.pos++);
  }

  private i16(): number {
    this.need(2);
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  private i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  private u64(what: string): number {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new WireDecodeError(`${what} is out of the safe integer range`);
    return Number(v);
  }

  private i64(what: string): number {
    this.need(8);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new WireDecodeError(`${what} is out of the safe integer range`);
    }
    return Number(v);
  }
}
