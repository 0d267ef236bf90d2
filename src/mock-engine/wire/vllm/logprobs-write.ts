/**
 * Engine side of the vLLM numpy/torch payloads (spec wire-vllm §4.4, §5.5): `[dtype, shape, data]`
 * arrays and the logprobs 4-tuple, as the engine writes them. The gateway's decoders are in
 * src/engine/dialects/vllm/logprobs.ts.
 */
import type { TokenLogprob } from '../../../engine/types.js';
import type { MsgpackWriter } from '../../../engine/msgpack/writer.js';
import { EXT_RAW_VIEW } from '../../../engine/msgpack/reader.js';
import { INLINE_ARRAY_THRESHOLD } from '../../../engine/dialects/vllm/constants.js';

/**
 * Write `[dtype, shape, data]`: inline ext 3 below `threshold` bytes (and for scalars), otherwise
 * push the bytes to `aux` and write their frame index (aux[0] is frame 1).
 */
export function writeNdArray(
  w: MsgpackWriter,
  dtype: string,
  shape: readonly number[],
  data: Uint8Array,
  aux: Buffer[],
  threshold = INLINE_ARRAY_THRESHOLD,
): void {
  w.arrayHeader(3).str(dtype).intArray(shape);
  if (shape.length === 0 || data.byteLength < threshold) {
    w.ext(EXT_RAW_VIEW, data);
  } else {
    aux.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    w.int(aux.length);
  }
}

export type DTypeSpelling = 'numpy' | 'torch';

const SPELLING = {
  numpy: { i32: '<i4', f32: '<f4', i64: '<i8' },
  torch: { i32: 'int32', f32: 'float32', i64: 'int64' },
} as const;

/**
 * Write a logprobs 4-tuple for `rows` (every row must carry the same number of top entries).
 * Sample logprobs use numpy spellings, prompt logprobs torch ones (what vLLM sends).
 */
export function writeLogprobRows(
  w: MsgpackWriter,
  rows: readonly TokenLogprob[],
  aux: Buffer[],
  spelling: DTypeSpelling = 'numpy',
  threshold = INLINE_ARRAY_THRESHOLD,
): void {
  const p = rows.length;
  const k = p === 0 ? 0 : rows[0].top.length;
  const cols = k + 1;
  const ids = new DataView(new ArrayBuffer(p * cols * 4));
  const lps = new DataView(new ArrayBuffer(p * cols * 4));
  const ranks = new DataView(new ArrayBuffer(p * 8));
  for (let r = 0; r < p; r++) {
    const row = rows[r];
    if (row.top.length !== k) throw new RangeError(`logprob row ${r} has ${row.top.length} top entries, want ${k}`);
    ids.setInt32(r * cols * 4, row.tokenId, true);
    lps.setFloat32(r * cols * 4, row.logprob, true);
    for (let c = 0; c < k; c++) {
      ids.setInt32((r * cols + c + 1) * 4, row.top[c].tokenId, true);
      lps.setFloat32((r * cols + c + 1) * 4, row.top[c].logprob, true);
    }
    // The engine always knows the rank; a caller without one gets "best" rather than a bogus 0.
    ranks.setBigInt64(r * 8, BigInt(row.rank ?? 1), true);
  }
  const names = SPELLING[spelling];
  w.arrayHeader(4);
  writeNdArray(w, names.i32, [p, cols], new Uint8Array(ids.buffer), aux, threshold);
  writeNdArray(w, names.f32, [p, cols], new Uint8Array(lps.buffer), aux, threshold);
  writeNdArray(w, names.i64, [p], new Uint8Array(ranks.buffer), aux, threshold);
  w.nil(); // cu_num_generated_tokens: always nil after vLLM's per-request slicing
}
