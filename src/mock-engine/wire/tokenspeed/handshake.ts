/**
 * Engine side of the TokenSpeed handshake (§1, §2): the identity rule, the HELLO/READY flavour,
 * the INIT reading rule and the 19-key registration map. The generic HELLO/READY/INIT codecs live
 * in engine/handshake-messages.ts; only TokenSpeed's choices are here.
 */
import { engineIdFor } from '../../../engine/engine-id.js';
import { encodeHello, encodeReady, type InitMessage, type StatusOptions } from '../../../engine/handshake-messages.js';
import { MsgpackWriter } from '../../../engine/msgpack/writer.js';
import { DEFAULT_PREFIX_GRANULARITY } from '../../../engine/dialects/tokenspeed/wire-constants.js';

/** TokenSpeed's HELLO/READY are always exactly these four keys (§2.2). */
export const TOKENSPEED_STATUS_OPTIONS: StatusOptions = { local: true, headless: true, parallelConfigHash: null };

export function encodeTokenSpeedHello(): Buffer {
  return encodeHello(TOKENSPEED_STATUS_OPTIONS);
}

export function encodeTokenSpeedReady(): Buffer {
  return encodeReady(TOKENSPEED_STATUS_OPTIONS);
}

/**
 * engine_index = --zmq-engine-index + attention-DP rank (§1). It must fit uint16: the real engine
 * fails while packing its identity otherwise, so we throw the same way.
 */
export function tokenspeedEngineIndex(zmqEngineIndex: number, dpRank = 0): number {
  const idx = zmqEngineIndex + dpRank;
  if (!Number.isInteger(idx) || zmqEngineIndex < 0 || dpRank < 0 || idx > 0xffff) {
    throw new RangeError(`tokenspeed engine index ${zmqEngineIndex} + rank ${dpRank} does not fit uint16`);
  }
  return idx;
}

/** The 2-byte little-endian routing id of both DEALERs (handshake and input) of one rank. */
export function tokenspeedIdentity(zmqEngineIndex: number, dpRank = 0): Buffer {
  return engineIdFor(tokenspeedEngineIndex(zmqEngineIndex, dpRank));
}

/**
 * TokenSpeed decodes INIT from the last frame it received (Errata 4) and only uses `inputs[0]` and
 * `outputs[0]`. Null means "empty list": the real rank exits after having sent READY.
 */
export function tokenspeedDataPlane(init: InitMessage): { input: string; output: string } | null {
  const input = init.addresses.inputs[0];
  const output = init.addresses.outputs[0];
  return input === undefined || output === undefined ? null : { input, output };
}

/** What a fake engine reports; `defaultRegistrationInfo` fills the rest like real TokenSpeed. */
export interface TsRegistrationInfo {
  maxModelLen: number;
  numGpuBlocks: number;
  prefixGranularity: number;
  dtype: 'bfloat16' | 'float16' | 'float32';
  /** Full string as sent, e.g. "tokenspeed-0.1.0". */
  vllmVersion: string;
  worldSize: number;
  dataParallelSize: number;
  tensorParallelSize: number;
  dataParallelRank: number;
  maxNumSeqs: number;
  /** max(0, --chunked-prefill-size); 0 = no cap. */
  maxNumBatchedTokens: number;
  instanceId: string;
  kvCacheSizeTokens: number;
}

export function defaultRegistrationInfo(overrides: Partial<TsRegistrationInfo> = {}): TsRegistrationInfo {
  return {
    maxModelLen: 32768,
    numGpuBlocks: 2048,
    prefixGranularity: DEFAULT_PREFIX_GRANULARITY,
    dtype: 'bfloat16',
    vllmVersion: 'tokenspeed-0.1.0',
    worldSize: 1,
    dataParallelSize: 1,
    tensorParallelSize: 1,
    dataParallelRank: 0,
    maxNumSeqs: 160,
    maxNumBatchedTokens: 8192,
    instanceId: 'tokenspeed-fake',
    kvCacheSizeTokens: 131072,
    ...overrides,
  };
}

/** `block_size` is what engines from 2026-08-03..08-13 sent instead of `prefix_granularity`. */
export type RegistrationVariant = 'prefix_granularity' | 'block_size';

/** The registration map in TokenSpeed's key order (§2.4), 19 keys, optional ones nil. */
export function encodeTokenSpeedRegistration(
  info: TsRegistrationInfo,
  variant: RegistrationVariant = 'prefix_granularity',
): Buffer {
  const w = new MsgpackWriter(512);
  w.mapHeader(19);
  w.str('max_model_len').int(info.maxModelLen);
  w.str('num_gpu_blocks').int(info.numGpuBlocks);
  w.str(variant).int(info.prefixGranularity);
  w.str('dp_stats_address').nil();
  w.str('dtype').str(info.dtype);
  w.str('multimodal_encoder_dtype').nil();
  w.str('vllm_version').str(info.vllmVersion);
  w.str('world_size').int(info.worldSize);
  w.str('data_parallel_size').int(info.dataParallelSize);
  w.str('tensor_parallel_size').int(info.tensorParallelSize);
  w.str('pipeline_parallel_size').int(1);
  w.str('decode_context_parallel_size').int(1);
  w.str('data_parallel_rank').int(info.dataParallelRank);
  w.str('max_num_seqs').int(info.maxNumSeqs);
  w.str('max_num_batched_tokens').int(Math.max(0, info.maxNumBatchedTokens));
  w.str('instance_id').str(info.instanceId);
  w.str('kv_cache_size_tokens').int(info.kvCacheSizeTokens);
  w.str('kv_cache_max_concurrency').nil();
  w.str('kv_events_config').nil();
  return w.toBuffer();
}
