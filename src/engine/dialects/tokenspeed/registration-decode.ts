/**
 * Gateway side: the registration map (first frame on the input ROUTER, §2.4) → Registration.
 *
 * Decoded leniently, as the spec asks: every key optional except max_model_len, unknown keys kept
 * in `raw`, and both spellings of the page size accepted (`prefix_granularity` since 2026-08-14,
 * `block_size` before). A present key of the wrong type is still rejected: that is not skew, it is
 * a different protocol.
 */
import type { Registration } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { decodeMsgpack } from '../../msgpack/reader.js';
import { DEFAULT_PREFIX_GRANULARITY } from './wire-constants.js';

export function decodeTokenSpeedRegistration(payload: Buffer): Registration {
  if (payload.length === 0) throw new WireDecodeError('tokenspeed registration: empty payload');
  const msg = decodeMsgpack(payload, 'tokenspeed registration');
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || msg instanceof Uint8Array) {
    throw new WireDecodeError('tokenspeed registration: not a map');
  }
  const raw = msg as Record<string, unknown>;
  const maxModelLen = optInt(raw, 'max_model_len');
  if (maxModelLen === null || maxModelLen <= 0) {
    throw new WireDecodeError('tokenspeed registration: max_model_len missing or not positive');
  }
  const maxBatched = optInt(raw, 'max_num_batched_tokens');
  return {
    maxModelLen,
    numGpuBlocks: optInt(raw, 'num_gpu_blocks') ?? 0,
    blockSize: optInt(raw, 'prefix_granularity') ?? optInt(raw, 'block_size') ?? DEFAULT_PREFIX_GRANULARITY,
    dtype: optStr(raw, 'dtype') ?? 'unknown',
    // "tokenspeed-<v>" is the only in-band runtime signal; kept verbatim for display.
    version: optStr(raw, 'vllm_version') ?? 'tokenspeed-unknown',
    worldSize: optInt(raw, 'world_size') ?? 1,
    dataParallelSize: optInt(raw, 'data_parallel_size') ?? 1,
    // The DP rank, not the engine_index: routing uses the identity instead (§1).
    dataParallelRank: optInt(raw, 'data_parallel_rank'),
    tensorParallelSize: optInt(raw, 'tensor_parallel_size') ?? 1,
    maxNumSeqs: optInt(raw, 'max_num_seqs'),
    // TokenSpeed clamps to ≥ 0 and uses 0 for "no cap", which the seam spells null.
    maxNumBatchedTokens: maxBatched === null || maxBatched <= 0 ? null : maxBatched,
    instanceId: optStr(raw, 'instance_id'),
    raw,
  };
}

function optInt(raw: Record<string, unknown>, key: string): number | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new WireDecodeError(`tokenspeed registration: ${key} is not an integer`);
  }
  return v;
}

function optStr(raw: Record<string, unknown>, key: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new WireDecodeError(`tokenspeed registration: ${key} is not a string`);
  return v;
}
