/**
 * numpy arrays / torch tensors on the vLLM wire (spec wire-vllm §4.4, §5.5): `[dtype, shape, data]`
 * where data is either ext 3 with the raw little-endian bytes (inline, < 256 bytes) or an int
 * index into the message's frames (frame 0 is the msgpack itself, aux frames are 1, 2, …).
 *
 * Logprobs come as 4-tuples `[token_ids [P, K+1], logprobs [P, K+1], ranks [P], nil]`: column 0
 * is the sampled token, columns 1..K the top-K in rank order. Sample logprobs use numpy dtype
 * strings (`<i4`), prompt logprobs torch names (`int32`); decoders accept both. The engine-side
 * writers are the mock engine's (src/mock-engine/wire/vllm/logprobs-write.ts).
 */
import type { TokenLogprob, TopLogprob } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { EXT_RAW_VIEW } from '../../msgpack/reader.js';

type ElemKind = 'int' | 'uint' | 'float' | 'bool' | 'bfloat';

interface DType {
  kind: ElemKind;
  size: number;
  littleEndian: boolean;
}

const TORCH_DTYPES: Record<string, DType> = {
  bool: { kind: 'bool', size: 1, littleEndian: true },
  uint8: { kind: 'uint', size: 1, littleEndian: true },
  int8: { kind: 'int', size: 1, littleEndian: true },
  int16: { kind: 'int', size: 2, littleEndian: true },
  uint16: { kind: 'uint', size: 2, littleEndian: true },
  int32: { kind: 'int', size: 4, littleEndian: true },
  uint32: { kind: 'uint', size: 4, littleEndian: true },
  int64: { kind: 'int', size: 8, littleEndian: true },
  uint64: { kind: 'uint', size: 8, littleEndian: true },
  float16: { kind: 'float', size: 2, littleEndian: true },
  bfloat16: { kind: 'bfloat', size: 2, littleEndian: true },
  float32: { kind: 'float', size: 4, littleEndian: true },
  float64: { kind: 'float', size: 8, littleEndian: true },
};

const NUMPY_KINDS: Record<string, ElemKind> = { i: 'int', u: 'uint', f: 'float', b: 'bool' };

/** numpy `dtype.str` ("<i4", "|b1", ">f8") or a torch name ("int32"); null if unknown. */
export function parseDType(name: string): DType | null {
  const torch = TORCH_DTYPES[name.startsWith('torch.') ? name.slice(6) : name];
  if (torch !== undefined) return torch;
  const m = /^([<>|=])([iufb])(1|2|4|8)$/.exec(name);
  if (m === null) return null;
  const kind = NUMPY_KINDS[m[2]];
  const size = Number(m[3]);
  if (kind === 'bool' && size !== 1) return null;
  if (kind === 'float' && size === 1) return null;
  return { kind, size, littleEndian: m[1] !== '>' };
}

const scratch = new DataView(new ArrayBuffer(4));

/** IEEE 754 binary16 → number (DataView.getFloat16 needs Node ≥ 24). */
function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** A decoded array with its raw bytes; elements are read through a DataView (any alignment). */
export class NdArray {
  readonly length: number;
  private readonly view: DataView;

  constructor(
    readonly dtypeName: string,
    readonly dtype: DType,
    readonly shape: readonly number[],
    readonly data: Uint8Array,
  ) {
    this.length = shape.reduce((a, b) => a * b, 1);
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  /** Element `i` (flat, C order) as a JS number; int64 beyond 2^53 loses precision. */
  get(i: number): number {
    const { kind, size, littleEndian: le } = this.dtype;
    const off = i * size;
    const v = this.view;
    switch (kind) {
      case 'bool':
        return v.getUint8(off) === 0 ? 0 : 1;
      case 'bfloat':
        // bfloat16 is the top half of a float32.
        scratch.setUint32(0, v.getUint16(off, le) << 16);
        return scratch.getFloat32(0);
      case 'float':
        return size === 2 ? halfToNumber(v.getUint16(off, le)) : size === 4 ? v.getFloat32(off, le) : v.getFloat64(off, le);
      case 'int':
        return size === 1
          ? v.getInt8(off)
          : size === 2
            ? v.getInt16(off, le)
            : size === 4
              ? v.getInt32(off, le)
              : Number(v.getBigInt64(off, le));
      case 'uint':
        return size === 1
          ? v.getUint8(off)
          : size === 2
            ? v.getUint16(off, le)
            : size === 4
              ? v.getUint32(off, le)
              : Number(v.getBigUint64(off, le));
    }
  }
}

/**
 * Decode `[dtype, shape, data]` (plain values from the gateway decoder). `frames` is the whole
 * multipart message, so an int `data` is an absolute frame index.
 */
export function decodeNdArray(value: unknown, frames: readonly Uint8Array[], what: string): NdArray {
  if (!Array.isArray(value) || value.length < 3) throw new WireDecodeError(`${what}: expected [dtype, shape, data]`);
  const [dtypeName, shape, data] = value as [unknown, unknown, unknown];
  if (typeof dtypeName !== 'string') throw new WireDecodeError(`${what}: dtype is not a string`);
  const dtype = parseDType(dtypeName);
  if (dtype === null) throw new WireDecodeError(`${what}: unsupported dtype ${JSON.stringify(dtypeName)}`);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    throw new WireDecodeError(`${what}: bad shape`);
  }
  let bytes: Uint8Array;
  if (data instanceof Uint8Array) {
    bytes = data;
  } else if (typeof data === 'number') {
    if (!Number.isInteger(data) || data < 1 || data >= frames.length) {
      throw new WireDecodeError(`${what}: aux frame index ${data} out of range (message has ${frames.length} frames)`);
    }
    bytes = frames[data];
  } else {
    throw new WireDecodeError(`${what}: data is neither raw bytes (ext ${EXT_RAW_VIEW}) nor a frame index`);
  }
  const arr = new NdArray(dtypeName, dtype, shape as number[], bytes);
  if (bytes.byteLength !== arr.length * dtype.size) {
    throw new WireDecodeError(
      `${what}: ${bytes.byteLength} bytes for shape [${shape.join(', ')}] of ${dtypeName} (want ${arr.length * dtype.size})`,
    );
  }
  return arr;
}

/**
 * LogprobsLists / LogprobsTensors → one TokenLogprob per position. nil → null. A 1-D id array
 * is read as "sampled token only". Throws WireDecodeError on inconsistent shapes — including
 * vLLM's whole-vocabulary form (logprobs = -1, empty id arrays), which the gateway never requests.
 */
export function decodeLogprobRows(value: unknown, frames: readonly Uint8Array[], what: string): TokenLogprob[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value) || value.length < 2) throw new WireDecodeError(`${what}: expected a logprobs tuple`);
  const ids = decodeNdArray(value[0], frames, `${what}.token_ids`);
  const lps = decodeNdArray(value[1], frames, `${what}.logprobs`);
  const ranksRaw: unknown = value.length > 2 ? value[2] : null;
  const ranks = ranksRaw === null || ranksRaw === undefined ? null : decodeNdArray(ranksRaw, frames, `${what}.ranks`);
  if (ids.dtype.kind !== 'int' && ids.dtype.kind !== 'uint') throw new WireDecodeError(`${what}: token ids are not integers`);
  if (ids.shape.length < 1 || ids.shape.length > 2) throw new WireDecodeError(`${what}: token ids must be 1-D or 2-D`);
  const rows = ids.shape[0];
  const cols = ids.shape.length === 2 ? ids.shape[1] : 1;
  if (cols < 1 && rows > 0) throw new WireDecodeError(`${what}: empty logprob rows (whole-vocabulary logprobs?)`);
  if (lps.length !== ids.length || lps.shape[0] !== rows) {
    throw new WireDecodeError(`${what}: logprobs shape [${lps.shape.join(', ')}] does not match ids [${ids.shape.join(', ')}]`);
  }
  if (ranks !== null && ranks.length !== rows) throw new WireDecodeError(`${what}: ${ranks.length} ranks for ${rows} rows`);
  const out: TokenLogprob[] = new Array<TokenLogprob>(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    const top: TopLogprob[] = new Array<TopLogprob>(cols - 1);
    for (let c = 1; c < cols; c++) top[c - 1] = { tokenId: ids.get(base + c), logprob: lps.get(base + c) };
    out[r] = { tokenId: ids.get(base), logprob: lps.get(base), rank: ranks === null ? null : ranks.get(r), top };
  }
  return out;
}
