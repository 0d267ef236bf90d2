/**
 * Gateway-side pieces added for TokenSpeed end to end: the runtime mismatch check, the prompt
 * logprobs refusal, never-reused wire ids for client rids, and replaying the first generation
 * event so a streaming handler can still answer an admission abort with a status.
 */
import { describe, expect, it } from 'vitest';
import { engineIdFor } from '../../src/engine/engine-id.js';
import { encodeTokenSpeedAdd, PROMPT_LOGPROBS_UNSUPPORTED } from '../../src/engine/dialects/tokenspeed/request-encode.js';
import { runtimeMismatch } from '../../src/engine/runtime-check.js';
import { WireEncodeError, type EngineRequest, type Registration, type SamplingSpec } from '../../src/engine/types.js';
import { engineRequestBase } from '../../src/pipeline/ids.js';
import { AsyncQueue } from '../../src/pipeline/async-queue.js';

const reg = (vllm_version?: unknown): Registration => ({
  maxModelLen: 4096, numGpuBlocks: 1, blockSize: 16, dtype: 'bfloat16', version: String(vllm_version), worldSize: 1,
  dataParallelSize: 1, dataParallelRank: 0, tensorParallelSize: 1, maxNumSeqs: null, maxNumBatchedTokens: null, instanceId: null,
  raw: vllm_version === undefined ? {} : { vllm_version },
});

describe('runtime mismatch', () => {
  const engines = (v: unknown) => [{ identity: engineIdFor(0), registration: reg(v) }];

  it('accepts matching runtimes and registrations without a version', () => {
    expect(runtimeMismatch('vllm', 'ipc:///x', engines('0.27.1'))).toBeNull();
    expect(runtimeMismatch('tokenspeed', 'ipc:///x', engines('tokenspeed-0.1.0'))).toBeNull();
    expect(runtimeMismatch('tokenspeed', 'ipc:///x', engines(undefined))).toBeNull();
  });

  it('names the engine, the worker and the fix both ways', () => {
    expect(runtimeMismatch('vllm', 'ipc:///x', engines('tokenspeed-0.1.0'))).toMatch(
      /^engine EngineId\(0000\) reports vllm_version "tokenspeed-0\.1\.0", i\.e\. it is a TokenSpeed engine, but worker ipc:\/\/\/x is configured for runtime vllm; .*declare runtime_type tokenspeed/,
    );
    expect(runtimeMismatch('tokenspeed', 'ipc:///x', engines('0.27.1'))).toMatch(/it is not a TokenSpeed engine.*declare runtime_type vllm/);
  });
});

describe('TokenSpeed request encoding', () => {
  it('refuses prompt logprobs with SMG text', () => {
    const sampling = {
      temperature: 1, topP: 1, topK: 0, minP: 0, presencePenalty: 0, frequencyPenalty: 0, repetitionPenalty: 1, seed: null,
      maxTokens: 4, minTokens: 0, stopTokenIds: [], eosTokenId: null, allStopTokenIds: [], ignoreEos: false, logprobs: null,
      promptLogprobs: 1, logitBias: null, allowedTokenIds: null, badWordsTokenIds: null, structured: null, skipSpecialTokens: true,
    } satisfies SamplingSpec;
    const req: EngineRequest = { requestId: 'r', promptTokenIds: [1], sampling, arrivalTime: 0, cacheSalt: null, dataParallelRank: null, priority: 0 };
    expect(() => encodeTokenSpeedAdd(req)).toThrow(WireEncodeError);
    expect(() => encodeTokenSpeedAdd(req)).toThrow(PROMPT_LOGPROBS_UNSUPPORTED);
    expect(PROMPT_LOGPROBS_UNSUPPORTED).toBe('prompt logprobs are not supported over the TokenSpeed ZMQ backend');
  });
});

describe('wire ids', () => {
  it('sends a client rid verbatim to vLLM only; TokenSpeed gets a unique suffix', () => {
    expect(engineRequestBase('my-rid', 'my-rid', 'vllm')).toBe('my-rid');
    const a = engineRequestBase('my-rid', 'my-rid', 'tokenspeed');
    expect(a).toMatch(/^my-rid-[0-9a-f-]{36}$/);
    expect(engineRequestBase('my-rid', 'my-rid', 'tokenspeed')).not.toBe(a);
    expect(engineRequestBase('chatcmpl-x-uuid', undefined, 'tokenspeed')).toBe('chatcmpl-x-uuid');
  });
});

describe('AsyncQueue.whenReady', () => {
  it('waits for the first item without taking it', async () => {
    const q = new AsyncQueue<number>();
    let ready = false;
    const p = q.whenReady().then(() => {
      ready = true;
    });
    await Promise.resolve();
    expect(ready).toBe(false);
    q.push(1);
    q.push(2);
    q.end();
    await p;
    const out: number[] = [];
    for await (const v of q) out.push(v);
    expect(out).toEqual([1, 2]);
  });

  it('surfaces a failure before the first item to the caller', async () => {
    const q = new AsyncQueue<number>();
    const p = q.whenReady();
    q.fail(new Error('refused'));
    await expect(p).rejects.toThrow('refused');
  });

  it('resolves at once for an ended queue and counts what is queued', async () => {
    const q = new AsyncQueue<number>();
    q.push(7);
    expect(q.size).toBe(1);
    q.end();
    await expect(q.whenReady()).resolves.toBeUndefined();
  });
});
