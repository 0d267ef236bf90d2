/**
 * The mock's 0.27.1 EngineCoreReadyResponse (wire-vllm §2.3), built from its CLI: what a real
 * engine would report after "loading" with these settings.
 */
import { randomUUID } from 'node:crypto';
import type { VllmReadyResponse } from './wire/vllm/index.js';
import type { MockArgs } from './args.js';

export function registrationFor(a: MockArgs, rank: number, maxModelLen: number): VllmReadyResponse {
  const kvTokens = a.numGpuBlocks * a.blockSize;
  return {
    maxModelLen,
    numGpuBlocks: a.numGpuBlocks,
    blockSize: a.blockSize,
    dpStatsAddress: null,
    dtype: a.dtype,
    vllmVersion: a.vllmVersion,
    worldSize: a.tensorParallelSize * a.pipelineParallelSize,
    // Dense DP ranks are reconfigured to DP=1 before they answer; only MoE groups report N.
    dataParallelSize: a.lockstep ? a.dpSize : 1,
    tensorParallelSize: a.tensorParallelSize,
    pipelineParallelSize: a.pipelineParallelSize,
    decodeContextParallelSize: 1,
    dataParallelRank: rank,
    maxNumSeqs: a.maxNumSeqs,
    maxNumBatchedTokens: a.maxNumBatchedTokens,
    instanceId: randomUUID(),
    kvCacheSizeTokens: kvTokens,
    kvCacheMaxConcurrency: kvTokens / maxModelLen,
    kvEventsConfig: null,
  };
}
