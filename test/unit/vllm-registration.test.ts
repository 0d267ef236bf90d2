/** Registration (EngineCoreReadyResponse) decode rules, spec wire-vllm §2.3. */
import { describe, expect, it } from 'vitest';
import { decodeRegistration } from '../../src/engine/dialects/vllm/index.js';
import { encodeRegistration, type VllmReadyResponse } from '../../src/mock-engine/wire/vllm/index.js';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import { WireDecodeError } from '../../src/engine/types.js';

const fields: VllmReadyResponse = {
  maxModelLen: 2048,
  numGpuBlocks: 0,
  blockSize: 16,
  dpStatsAddress: null,
  dtype: 'float32',
  vllmVersion: '0.27.1',
  worldSize: 2,
  dataParallelSize: 4,
  tensorParallelSize: 2,
  pipelineParallelSize: 1,
  decodeContextParallelSize: 1,
  dataParallelRank: 3,
  maxNumSeqs: 64,
  maxNumBatchedTokens: 4096,
  instanceId: 'i',
  kvCacheSizeTokens: null,
  kvCacheMaxConcurrency: null,
  kvEventsConfig: { enable_kv_cache_events: false },
};

const first8 = {
  max_model_len: 2048,
  num_gpu_blocks: 10,
  block_size: 16,
  dp_stats_address: null,
  dtype: 'bfloat16',
  vllm_version: '0.26.0',
  world_size: 2,
  data_parallel_size: 1,
};

describe('registration decode', () => {
  it('round-trips the 0.27 layout', () => {
    const reg = decodeRegistration(encodeRegistration(fields));
    expect(reg).toMatchObject({ dataParallelSize: 4, dataParallelRank: 3, tensorParallelSize: 2, maxNumSeqs: 64 });
    expect(reg.raw['kv_events_config']).toEqual({ enable_kv_cache_events: false });
  });

  it('defaults everything after the first 8 keys (0.26)', () => {
    const reg = decodeRegistration(encodeRegistration({ ...fields, worldSize: 3 }, { layout: '0.26' }));
    expect(reg).toMatchObject({
      worldSize: 3,
      dataParallelRank: null,
      tensorParallelSize: 3,
      maxNumSeqs: null,
      maxNumBatchedTokens: null,
      instanceId: null,
    });
  });

  it('ignores extra keys from newer engines but keeps them in raw', () => {
    const reg = decodeRegistration(encodeRegistration(fields, { extraKeys: { supports_lora: true, max_loras: 4 } }));
    expect(reg.maxModelLen).toBe(2048);
    expect(reg.raw['max_loras']).toBe(4);
  });

  it('accepts prefix_granularity for block_size', () => {
    const { block_size: _drop, ...rest } = first8;
    const reg = decodeRegistration(encodeWith((w) => w.value({ ...rest, prefix_granularity: 32 })));
    expect(reg.blockSize).toBe(32);
  });

  it('rejects an empty payload', () => {
    expect(() => decodeRegistration(Buffer.alloc(0))).toThrow(WireDecodeError);
  });

  it.each(Object.keys(first8))('rejects a registration without %s', (key) => {
    const m: Record<string, unknown> = { ...first8 };
    delete m[key];
    expect(() => decodeRegistration(encodeWith((w) => w.value(m)))).toThrow(/missing required key/);
  });

  it.each([
    ['an unsupported dtype', { dtype: 'int8' }],
    ['a float max_model_len', { max_model_len: 2048.5 }],
    ['a str world_size', { world_size: '1' }],
    ['zero block_size', { block_size: 0 }],
  ])('rejects %s', (_name, patch) => {
    expect(() => decodeRegistration(encodeWith((w) => w.value({ ...first8, ...patch })))).toThrow(WireDecodeError);
  });

  it('rejects a non-map payload', () => {
    expect(() => decodeRegistration(encodeWith((w) => w.arrayHeader(0)))).toThrow(/not a map/);
  });
});
