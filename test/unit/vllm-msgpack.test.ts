/** The shared msgpack writer and typed reader, cross-checked against @msgpack/msgpack. */
import { encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeMsgpack } from '../../src/engine/msgpack/reader.js';
import { readTyped, toPlain } from '../../src/mock-engine/wire/typed-reader.js';
import { MsgpackWriter, encodeWith } from '../../src/engine/msgpack/writer.js';
import { WireDecodeError } from '../../src/engine/types.js';

const libHex = (v: unknown): string => Buffer.from(encode(v)).toString('hex');
const ourHex = (fill: (w: MsgpackWriter) => void): string => encodeWith(fill).toString('hex');

describe('writer', () => {
  const ints = [
    0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 40, Number.MAX_SAFE_INTEGER,
    -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, Number.MIN_SAFE_INTEGER,
  ];
  it.each(ints)('int %d in its smallest form', (n) => {
    expect(ourHex((w) => w.int(n))).toBe(libHex(n));
    expect(readTyped(encodeWith((w) => w.int(n)))).toEqual({ t: 'int', v: n });
  });

  it('uintArray writes what the library writes for each id, from a small buffer, and refuses what int refuses', () => {
    const uints = ints.filter((n) => n >= 0);
    // A long run (the buffer grows past its start size mid-array) with every size class mixed in.
    const long = Array.from({ length: 70_000 }, (_, i) => uints[i % uints.length]);
    for (const values of [[], uints, long, [...long, 2 ** 40, 1, 2 ** 32 - 1]]) {
      const w = new MsgpackWriter(16);
      expect(w.uintArray(values).toBuffer().toString('hex')).toBe(libHex(values));
    }
    // intArray: the same for ids, and negatives in int's own forms.
    const signed = [...long, ...ints];
    expect(new MsgpackWriter(16).intArray(signed).toBuffer().toString('hex')).toBe(libHex(signed));
    expect(() => new MsgpackWriter().intArray([1, 2.5])).toThrow(/not a safe integer/);
    expect(() => new MsgpackWriter().uintArray([1, -1])).toThrow(/msgpack uint: -1 is negative/);
    expect(() => new MsgpackWriter().uintArray([1, Number.NaN])).toThrow(/msgpack uint: NaN/);
    expect(() => new MsgpackWriter().uintArray([1, 2.5])).toThrow(/not a safe integer/);
    expect(() => new MsgpackWriter().uintArray([2 ** 53])).toThrow(/not a safe integer/);
  });

  it('refuses non-integers and unsafe integers as int', () => {
    expect(() => new MsgpackWriter().int(1.5)).toThrow(RangeError);
    expect(() => new MsgpackWriter().int(2 ** 53)).toThrow(RangeError);
  });

  it('bigint beyond 2^53 uses uint64/int64', () => {
    expect(ourHex((w) => w.bigint(2n ** 64n - 1n))).toBe('cfffffffffffffffff');
    expect(ourHex((w) => w.bigint(-(2n ** 63n)))).toBe('d38000000000000000');
    expect(ourHex((w) => w.bigint(5n))).toBe('05');
    expect(readTyped(encodeWith((w) => w.bigint(2n ** 64n - 1n)))).toEqual({ t: 'int', v: 2n ** 64n - 1n });
  });

  it('float64 always cb, float32 ca', () => {
    expect(ourHex((w) => w.float64(0))).toBe('cb0000000000000000');
    expect(ourHex((w) => w.float64(1))).toBe('cb3ff0000000000000');
    expect(ourHex((w) => w.float32(1))).toBe('ca3f800000');
    expect(readTyped(encodeWith((w) => w.float32(0.5)))).toEqual({ t: 'float', v: 0.5, bits: 32 });
  });

  const strings = ['', 'a', 'x'.repeat(31), 'x'.repeat(32), 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(65535), 'x'.repeat(65536), 'é'.repeat(15), 'é'.repeat(16), '😀'.repeat(64), 'ü'.repeat(40000)];
  it.each(strings.map((s) => [s.length, s] as const))('str of %d chars', (_len, s) => {
    expect(ourHex((w) => w.str(s))).toBe(libHex(s));
    expect(readTyped(encodeWith((w) => w.str(s)))).toEqual({ t: 'str', v: s });
  });

  it.each([0, 1, 255, 256, 65536])('bin of %d bytes', (n) => {
    const data = new Uint8Array(n).fill(7);
    expect(ourHex((w) => w.bin(data))).toBe(libHex(data));
  });

  it.each([
    [1, 'd403'],
    [2, 'd503'],
    [3, 'c70303'],
    [4, 'd603'],
    [8, 'd703'],
    [12, 'c70c03'],
    [16, 'd803'],
    [256, 'c8010003'],
    [65536, 'c90001000003'],
  ])('ext of %d bytes starts with %s', (n, head) => {
    const bytes = encodeWith((w) => w.ext(3, new Uint8Array(n)));
    expect(bytes.toString('hex').startsWith(head)).toBe(true);
    expect(readTyped(bytes)).toEqual({ t: 'ext', type: 3, v: new Uint8Array(n) });
  });

  it('containers: fix/16/32 headers, forced map16, deferred headers', () => {
    expect(ourHex((w) => w.arrayHeader(15))).toBe('9f');
    expect(ourHex((w) => w.arrayHeader(16))).toBe('dc0010');
    expect(ourHex((w) => w.mapHeader(70000))).toBe('df00011170');
    expect(ourHex((w) => w.mapHeader(2, { force16: true }))).toBe('de0002');
    const small = ourHex((w) => {
      const m = w.beginContainer();
      w.str('a').int(1);
      w.endMap(m, 1);
    });
    expect(small).toBe(libHex({ a: 1 }));
    const big = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const bigHex = ourHex((w) => {
      const m = w.beginContainer();
      for (const [k, v] of Object.entries(big)) w.str(k).int(v);
      w.endMap(m, 20);
    });
    expect(bigHex).toBe(libHex(big));
    expect(ourHex((w) => w.endArray(w.beginContainer(), 0))).toBe('90');
  });

  it('value(): Map keys keep their types; plain objects use str keys', () => {
    expect(ourHex((w) => w.value(new Map([[5, 1.5]])))).toBe('8105cb3ff8000000000000');
    expect(ourHex((w) => w.value({ a: [1, null, true, 'x', 0.5] }))).toBe(libHex({ a: [1, null, true, 'x', 0.5] }));
  });

  it('grows, copies out, and drops an oversized buffer on reset', () => {
    const w = new MsgpackWriter(16, 1024);
    w.intArray(Array.from({ length: 5000 }, (_, i) => i));
    const copy = w.toBuffer();
    w.reset().int(1);
    expect(w.length).toBe(1);
    expect(decodeMsgpack(copy)).toHaveLength(5000);
  });
});

describe('typed reader', () => {
  it('keeps int / float / bool / str / bin apart', () => {
    const bytes = encodeWith((w) => w.arrayHeader(5).int(1).float64(1).bool(true).str('s').bin(Buffer.from('s')));
    expect(readTyped(bytes)).toEqual({
      t: 'array',
      v: [
        { t: 'int', v: 1 },
        { t: 'float', v: 1, bits: 64 },
        { t: 'bool', v: true },
        { t: 'str', v: 's' },
        { t: 'bin', v: new Uint8Array([0x73]) },
      ],
    });
  });

  it('keeps map key types and converts to plain values', () => {
    const v = readTyped(encodeWith((w) => w.mapHeader(2).int(1).str('a').str('b').nil()));
    expect(v).toEqual({
      t: 'map',
      v: [
        [{ t: 'int', v: 1 }, { t: 'str', v: 'a' }],
        [{ t: 'str', v: 'b' }, { t: 'nil' }],
      ],
    });
    expect(toPlain(v)).toEqual(new Map<unknown, unknown>([[1, 'a'], ['b', null]]));
    const proto = toPlain(readTyped(encodeWith((w) => w.mapHeader(1).str('__proto__').int(1)))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });

  it.each([
    ['trailing bytes', Buffer.from('0101', 'hex')],
    ['the reserved byte c1', Buffer.from('c1', 'hex')],
    ['a truncated str', Buffer.from('a3616263'.slice(0, 6), 'hex')],
    ['an absurd array length', Buffer.from('ddffffffff', 'hex')],
    ['nothing at all', Buffer.alloc(0)],
  ])('rejects %s', (_name, bytes) => {
    expect(() => readTyped(bytes)).toThrow(WireDecodeError);
  });
});
