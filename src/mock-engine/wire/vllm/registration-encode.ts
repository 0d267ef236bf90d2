/**
 * Engine side of REGISTRATION (spec wire-vllm §2.3): vLLM's `EngineCoreReadyResponse` as the
 * dataclass map an engine sends first on the input socket, every key present, nil for None.
 * The gateway's decoder is src/engine/dialects/vllm/registration.ts.
 */
import { MsgpackWriter } from '../../../engine/msgpack/writer.js';

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
