/**
 * REGISTRATION = vLLM's `EngineCoreReadyResponse`, the first message an engine sends on the input
 * socket (spec wire-vllm §2.3). A dataclass → a map with every key, nil for None.
 *
 * Gateway: require the 8 keys 0.26 already sent (`prefix_granularity` may stand in for
 * `block_size`, TokenSpeed's spelling), default the rest, ignore unknown keys (main adds more).
 */
import type { Registration } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { decodeMsgpack } from '../../msgpack/reader.js';
import { MsgpackWriter } from '../../msgpack/writer.js';

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

// ---------------------------------------------------------------------------------------------
// Engine side

/** Every field of a 0.27.1 EngineCoreReadyResponse, in wire order. */
export interface VllmReadyResponse {
  maxModelLen: number;
  numGpuBlocks: number;
  blockSize: number;
  dpStatsAddress: string | null;
  dtype: string;
  vllmVersion: string;
  worldSize: number;
  dataParallelSize: number;
  tensorParallelSize: number;
  pipelineParallelSize: number;
  decodeContextParallelSize: number;
  dataParallelRank: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  instanceId: string;
  kvCacheSizeTokens: number | null;
  kvCacheMaxConcurrency: number | null;
  kvEventsConfig: Record<string, unknown> | null;
}

export interface EncodeRegistrationOptions {
  /** '0.26' writes only the first 8 keys, as vLLM 0.26.0 did. Default '0.27'. */
  layout?: '0.26' | '0.27';
  /** Appended after the known keys (what newer engines add), for tolerance tests. */
  extraKeys?: Record<string, unknown>;
}

/** The registration map (H3 for the 0.27.1 layout: 18 keys → map16 `de 00 12`). */
export function encodeRegistration(r: VllmReadyResponse, opts: EncodeRegistrationOptions = {}): Buffer {
  const short = opts.layout === '0.26';
  const extra = Object.entries(opts.extraKeys ?? {});
  const w = new MsgpackWriter(512);
  w.mapHeader((short ? 8 : 18) + extra.length);
  w.str('max_model_len').int(r.maxModelLen);
  w.str('num_gpu_blocks').int(r.numGpuBlocks);
  w.str('block_size').int(r.blockSize);
  w.str('dp_stats_address');
  if (r.dpStatsAddress === null) w.nil();
  else w.str(r.dpStatsAddress);
  w.str('dtype').str(r.dtype);
  w.str('vllm_version').str(r.vllmVersion);
  w.str('world_size').int(r.worldSize);
  w.str('data_parallel_size').int(r.dataParallelSize);
  if (!short) {
    w.str('tensor_parallel_size').int(r.tensorParallelSize);
    w.str('pipeline_parallel_size').int(r.pipelineParallelSize);
    w.str('decode_context_parallel_size').int(r.decodeContextParallelSize);
    w.str('data_parallel_rank').int(r.dataParallelRank);
    w.str('max_num_seqs').int(r.maxNumSeqs);
    w.str('max_num_batched_tokens').int(r.maxNumBatchedTokens);
    w.str('instance_id').str(r.instanceId);
    w.str('kv_cache_size_tokens');
    if (r.kvCacheSizeTokens === null) w.nil();
    else w.int(r.kvCacheSizeTokens);
    w.str('kv_cache_max_concurrency');
    if (r.kvCacheMaxConcurrency === null) w.nil();
    else w.float64(r.kvCacheMaxConcurrency);
    w.str('kv_events_config').value(r.kvEventsConfig);
  }
  for (const [k, v] of extra) w.str(k).value(v);
  return w.toBuffer();
}
