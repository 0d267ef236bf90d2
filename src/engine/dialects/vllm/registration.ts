/**
 * REGISTRATION = vLLM's `EngineCoreReadyResponse`, the first message an engine sends on the input
 * socket (spec wire-vllm §2.3). A dataclass → a map with every key, nil for None.
 *
 * The gateway requires the 8 keys 0.26 already sent (`prefix_granularity` may stand in for
 * `block_size`, TokenSpeed's spelling), default the rest, ignore unknown keys (main adds more). The engine-side
 * encoder is the mock engine's (src/mock-engine/wire/vllm/registration-encode.ts).
 */
import type { Registration } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { decodeMsgpack } from '../../msgpack/reader.js';

/** Model dtypes the gateway accepts (SMG rejects anything else). */
const DTYPES = new Set(['bfloat16', 'float16', 'float32']);

export function decodeRegistration(payload: Buffer): Registration {
  if (payload.length === 0) {
    throw new WireDecodeError('empty registration payload (engines older than vLLM 0.26 are not supported)');
  }
  const raw = decodeMsgpack(payload, 'registration');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw instanceof Uint8Array) {
    throw new WireDecodeError('registration is not a map');
  }
  const m = raw as Record<string, unknown>;
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(m, k);
  const req = (k: string): unknown => {
    if (!has(k)) throw new WireDecodeError(`registration is missing required key ${k}`);
    return m[k];
  };

  const blockKey = has('block_size') ? 'block_size' : has('prefix_granularity') ? 'prefix_granularity' : null;
  if (blockKey === null) throw new WireDecodeError('registration is missing required key block_size');
  const dpStats = req('dp_stats_address');
  if (dpStats !== null && typeof dpStats !== 'string') throw new WireDecodeError('registration dp_stats_address is not a str');
  const dtype = req('dtype');
  if (typeof dtype !== 'string') throw new WireDecodeError('registration dtype is not a str');
  if (!DTYPES.has(dtype)) throw new WireDecodeError(`registration dtype ${JSON.stringify(dtype)} is not one of bfloat16, float16, float32`);
  const version = req('vllm_version');
  if (typeof version !== 'string') throw new WireDecodeError('registration vllm_version is not a str');

  const worldSize = posInt(req('world_size'), 'world_size');
  return {
    maxModelLen: posInt(req('max_model_len'), 'max_model_len'),
    numGpuBlocks: nonNegInt(req('num_gpu_blocks'), 'num_gpu_blocks'),
    blockSize: posInt(m[blockKey], blockKey),
    dtype,
    version,
    worldSize,
    dataParallelSize: posInt(req('data_parallel_size'), 'data_parallel_size'),
    dataParallelRank: optInt(m['data_parallel_rank'], 'data_parallel_rank'),
    // 0.26 does not report it; without pipeline parallelism it equals world_size.
    tensorParallelSize: optInt(m['tensor_parallel_size'], 'tensor_parallel_size') ?? worldSize,
    maxNumSeqs: optInt(m['max_num_seqs'], 'max_num_seqs'),
    maxNumBatchedTokens: optInt(m['max_num_batched_tokens'], 'max_num_batched_tokens'),
    instanceId: optStr(m['instance_id'], 'instance_id'),
    raw: m,
  };
}

function nonNegInt(v: unknown, key: string): number {
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new WireDecodeError(`registration ${key} is not a non-negative int`);
  return v as number;
}

function posInt(v: unknown, key: string): number {
  if (!Number.isSafeInteger(v) || (v as number) < 1) throw new WireDecodeError(`registration ${key} is not a positive int`);
  return v as number;
}

function optInt(v: unknown, key: string): number | null {
  if (v === undefined || v === null) return null;
  return nonNegInt(v, key);
}

function optStr(v: unknown, key: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new WireDecodeError(`registration ${key} is not a str`);
  return v;
}
