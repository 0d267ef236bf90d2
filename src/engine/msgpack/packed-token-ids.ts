/**
 * A long prompt's token ids already written as the msgpack array an ADD carries, so the event
 * loop can splice them in instead of checking and writing 131k ids one by one (~1 ms of one
 * turn for a 131k-token prompt, beside every running stream).
 *
 * The prompt thread packs the ids it encoded (`packTokenIds`); the pool attaches the bytes to the
 * number[] the pipeline works with (`attachPackedTokenIds`), and both dialects' guards and ADD
 * encoders look them up (`packedTokenIdsOf`). The bytes are exactly what `MsgpackWriter.uintArray`
 * and `intArray` write for the same ids (smallest form per id, like msgspec/msgpack-python), and
 * only ids the wire guards accept (`checkTokenIds`: integers in [0, 2^31)) are ever packed, so a
 * packed list needs no guard pass and an ADD is the same bytes either way.
 */

import { encodeWith } from './writer.js';

/** The guards' bound on a token id (guard-checks.ts `checkTokenId`: an integer in [0, 2^31)). */
const TOKEN_ID_LIMIT = 0x8000_0000;

interface Packed {
  bytes: Uint8Array;
  /** The list's length and end ids when packed: a list changed since no longer matches. */
  count: number;
  first: number;
  last: number;
}

// Keyed by the very array the pipeline carries (request → fan-out → EngineRequest): a copy or a
// slice of it has no entry and is encoded id by id, as before. Entries go with their arrays.
const packedByIds = new WeakMap<readonly number[], Packed>();

/**
 * The msgpack array (header and ids) of `ids`, or null when one of them is outside what the wire
 * guards accept (then the event loop checks and encodes the list itself, with its error text).
 * Written by the same writer loop the ADD encoders use, so the bytes cannot drift from theirs; the
 * result owns its ArrayBuffer (the prompt thread transfers it).
 */
export function packTokenIds(ids: ArrayLike<number>): Uint8Array | null {
  const n = ids.length;
  if (n === 0) return null; // the guards refuse an empty prompt, in their own words
  for (let i = 0; i < n; i++) {
    const v = ids[i];
    if (!(Number.isInteger(v) && v >= 0 && v < TOKEN_ID_LIMIT)) return null;
  }
  // The writer reads only `length` and indexed ids: a typed array from the encoder serves as is.
  return new Uint8Array(encodeWith((w) => w.uintArray(ids as readonly number[]), n * 5 + 5));
}

/** Records that `bytes` (from `packTokenIds` over the same ids) is how `ids` goes on the wire. */
export function attachPackedTokenIds(ids: readonly number[], bytes: Uint8Array): void {
  if (ids.length === 0) return;
  packedByIds.set(ids, { bytes, count: ids.length, first: ids[0], last: ids[ids.length - 1] });
}

/**
 * The packed bytes of `ids`, or null when it has none (or was changed since: the pipeline never
 * changes a prompt's list in place, but a stale entry must not put other ids on the wire).
 */
export function packedTokenIdsOf(ids: unknown): Uint8Array | null {
  if (!Array.isArray(ids)) return null;
  const p = packedByIds.get(ids);
  if (p === undefined) return null;
  if (p.count !== ids.length || p.first !== ids[0] || p.last !== ids[ids.length - 1]) return null;
  return p.bytes;
}
