/**
 * Every hex vector of spec wire-vllm §6.3, byte for byte on encode and decoded back to the
 * normalized values (gateway side and fake-engine side).
 */
import { describe, expect, it } from 'vitest';
import {
  ENGINE_CORE_DEAD,
  decodeOutput,
  decodeRegistration,
  encodeAbort,
  encodeAdd,
  encodeStartWave,
  encodeUtility,
} from '../../src/engine/dialects/vllm/index.js';
import {
  decodeEngineInput,
  encodeOutputs,
  encodeRegistration,
  type VllmReadyResponse,
  type WireOutput,
} from '../../src/mock-engine/wire/vllm/index.js';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import type { RequestOutput } from '../../src/engine/types.js';
import { VLLM_VECTORS as V, frames, hex, r1Request, R1_FIELDS } from './vllm-fixtures.js';

const TS = 12345.5;
const IDENTITY_0 = '0000';

function out(over: Partial<RequestOutput> = {}): RequestOutput {
  return {
    requestId: 'req-1',
    newTokenIds: [5],
    finish: null,
    stopReason: null,
    logprobs: null,
    cachedTokens: null,
    errorMessage: null,
    endsWithStopToken: false,
    ...over,
  };
}

function wireOut(over: Partial<WireOutput> = {}): WireOutput {
  return { requestId: 'req-1', newTokenIds: [5], ...over };
}

describe('handshake maps (writer reproduces H1, H2, H4, H4b)', () => {
  const hello = { status: 'HELLO', local: false, headless: true };
  const ready = { status: 'READY', local: false, headless: true };
  it('H1 HELLO', () => {
    expect(encodeWith((w) => w.value(hello)).toString('hex')).toBe(V.H1[1]);
  });
  it('H2 INIT', () => {
    const init = {
      addresses: {
        inputs: ['ipc:///tmp/smg-zmq/engine-0-in.sock'],
        outputs: ['ipc:///tmp/smg-zmq/engine-0-out.sock'],
        coordinator_input: null,
        coordinator_output: null,
        frontend_stats_publish_address: null,
      },
      parallel_config: {},
    };
    expect(encodeWith((w) => w.value(init)).toString('hex')).toBe(V.H2[1]);
  });
  it('H4 READY and H4b READY (MoE rank 1)', () => {
    expect(encodeWith((w) => w.value(ready)).toString('hex')).toBe(V.H4[1]);
    const moe = { ...ready, parallel_config_hash: '0123abcd' };
    expect(encodeWith((w) => w.value(moe)).toString('hex')).toBe(V.H4b[1]);
    expect(V.H4b[0]).toBe('0100');
  });
});

describe('H3 registration', () => {
  const fields: VllmReadyResponse = {
    maxModelLen: 4096,
    numGpuBlocks: 1000,
    blockSize: 16,
    dpStatsAddress: null,
    dtype: 'bfloat16',
    vllmVersion: '0.27.1',
    worldSize: 1,
    dataParallelSize: 1,
    tensorParallelSize: 1,
    pipelineParallelSize: 1,
    decodeContextParallelSize: 1,
    dataParallelRank: 0,
    maxNumSeqs: 256,
    maxNumBatchedTokens: 8192,
    instanceId: 'inst-0',
    kvCacheSizeTokens: 16000,
    kvCacheMaxConcurrency: 3.90625,
    kvEventsConfig: null,
  };

  it('encodes byte for byte (engine side)', () => {
    expect(encodeRegistration(fields).toString('hex')).toBe(V.H3[1]);
  });

  it('decodes to a Registration (gateway side)', () => {
    const reg = decodeRegistration(frames('H3')[1]);
    expect(reg).toMatchObject({
      maxModelLen: 4096,
      numGpuBlocks: 1000,
      blockSize: 16,
      dtype: 'bfloat16',
      version: '0.27.1',
      worldSize: 1,
      dataParallelSize: 1,
      dataParallelRank: 0,
      tensorParallelSize: 1,
      maxNumSeqs: 256,
      maxNumBatchedTokens: 8192,
      instanceId: 'inst-0',
    });
    expect(Object.keys(reg.raw)).toHaveLength(18);
    expect(reg.raw['kv_cache_max_concurrency']).toBe(3.90625);
  });
});

describe('request plane', () => {
  it('R1 ADD: encodeAdd is byte-exact', () => {
    const f = encodeAdd(r1Request());
    expect([IDENTITY_0, ...hex(f)]).toEqual(V.R1);
  });

  it('R1 decodes on the engine side to the same request', () => {
    const input = decodeEngineInput(frames('R1').slice(1));
    expect(input.kind).toBe('add');
    if (input.kind !== 'add') return;
    const r = input.request;
    expect(r).toMatchObject({
      requestId: 'req-1',
      promptTokenIds: [1, 2, 3],
      arrivalTime: 1700000000,
      cacheSalt: null,
      dataParallelRank: null,
      clientIndex: 0,
      priority: 0,
      fieldCount: 20,
    });
    expect(r.sampling.wireKeys).toEqual(['temperature', 'max_tokens']);
    expect(r.sampling).toMatchObject({ temperature: 0, topP: 1, topK: 0, maxTokens: 4, eosTokenId: null });
  });

  it('R1b: the writer reproduces msgspec map16 sampling, and it decodes to the same config', () => {
    const payload = encodeWith((w) => {
      w.arrayHeader(20);
      R1_FIELDS.forEach((f, i) => {
        if (i !== 3) return f(w);
        w.mapHeader(6, { force16: true });
        w.str('temperature').float64(0).str('stop').arrayHeader(0).str('stop_token_ids').arrayHeader(0);
        w.str('max_tokens').int(4).str('bad_words').arrayHeader(0).str('skip_reading_prefix_cache').bool(false);
      });
    });
    expect(payload.toString('hex')).toBe(V.R1b[0]);
    const input = decodeEngineInput([Buffer.from([0]), payload]);
    expect(input.kind).toBe('add');
    if (input.kind !== 'add') return;
    expect(input.request.sampling).toMatchObject({
      temperature: 0,
      maxTokens: 4,
      stop: [],
      stopTokenIds: [],
      badWords: [],
      skipReadingPrefixCache: false,
      eosTokenId: null,
    });
  });

  it('R1c: the writer reproduces SMG float32 sampling, and it decodes to the same config', () => {
    const payload = encodeWith((w) => {
      w.arrayHeader(20);
      R1_FIELDS.forEach((f, i) => {
        if (i !== 3) return f(w);
        w.mapHeader(12);
        w.str('temperature').float32(0).str('top_p').float32(1).str('top_k').int(0);
        w.str('max_tokens').int(4).str('min_tokens').int(0).str('min_p').float32(0);
        w.str('frequency_penalty').float32(0).str('presence_penalty').float32(0);
        w.str('repetition_penalty').float32(1).str('stop_token_ids').arrayHeader(0);
        w.str('_eos_token_id').int(2).str('_all_stop_token_ids').intArray([2]);
      });
    });
    expect(payload.toString('hex')).toBe(V.R1c[0]);
    const input = decodeEngineInput([Buffer.from([0]), payload]);
    expect(input.kind).toBe('add');
    if (input.kind !== 'add') return;
    expect(input.request.sampling).toMatchObject({
      temperature: 0,
      topP: 1,
      topK: 0,
      minP: 0,
      repetitionPenalty: 1,
      maxTokens: 4,
      eosTokenId: 2,
      allStopTokenIds: [2],
    });
  });

  it('R2 ABORT', () => {
    expect([IDENTITY_0, ...hex(encodeAbort(['req-1']))]).toEqual(V.R2);
    expect(decodeEngineInput(frames('R2').slice(1))).toEqual({ kind: 'abort', requestIds: ['req-1'] });
  });

  it('R3 START_DP_WAVE [3, nil]', () => {
    expect(['0100', ...hex(encodeStartWave(3) ?? [])]).toEqual(V.R3);
    expect(decodeEngineInput(frames('R3').slice(1))).toEqual({ kind: 'start_wave', wave: 3, excludeRank: null });
  });

  it('R4 UTILITY get_supported_tasks', () => {
    expect([IDENTITY_0, ...hex(encodeUtility(12345, 'get_supported_tasks', []))]).toEqual(V.R4);
    expect(decodeEngineInput(frames('R4').slice(1))).toEqual({
      kind: 'utility',
      clientIndex: 0,
      callId: 12345,
      method: 'get_supported_tasks',
      args: [],
    });
  });
});

describe('output plane', () => {
  it('O1 one token, not finished', () => {
    expect(hex(encodeOutputs({ engineIndex: 0, outputs: [wireOut()], timestamp: TS }))).toEqual(V.O1);
    expect(decodeOutput(frames('O1'))).toEqual({
      kind: 'batch',
      engineIndex: 0,
      outputs: [out()],
      load: null,
      finishedRequests: null,
    });
  });

  it('O1b events + full scheduler_stats', () => {
    const bytes = encodeOutputs({
      engineIndex: 0,
      outputs: [
        wireOut({
          events: [
            { type: 1, timestamp: 12345.25 },
            { type: 2, timestamp: 12345.3 },
          ],
        }),
      ],
      schedulerStats: {
        numRunningReqs: 1,
        numWaitingReqs: 0,
        kvCacheUsage: 0.001,
        prefixCacheStats: {
          reset: false,
          requests: 1,
          queries: 3,
          hits: 0,
          preemptedRequests: 0,
          preemptedQueries: 0,
          preemptedHits: 0,
        },
      },
      timestamp: TS,
    });
    expect(hex(bytes)).toEqual(V.O1b);
    expect(decodeOutput(frames('O1b'))).toEqual({
      kind: 'batch',
      engineIndex: 0,
      // The events give the queue time: SCHEDULED − QUEUED on the engine clock.
      outputs: [{ ...out(), queuedSecs: 12345.3 - 12345.25 }],
      // prefix_cache_stats.queries of the step (hits 0 is left out).
      load: { numRunning: 1, numWaiting: 0, kvCacheUsage: 0.001, prefixQueries: 3 },
      finishedRequests: null,
    });
  });

  const finishes: Array<[name: 'O2' | 'O2b' | 'O3', WireOutput, Partial<RequestOutput>]> = [
    ['O2', wireOut({ newTokenIds: [6], finishReason: 0 }), { newTokenIds: [6], finish: 'stop', endsWithStopToken: true }],
    [
      'O2b',
      wireOut({ newTokenIds: [7], finishReason: 0, stopReason: 7 }),
      { newTokenIds: [7], finish: 'stop', stopReason: 7, endsWithStopToken: true },
    ],
    ['O3', wireOut({ newTokenIds: [8], finishReason: 1 }), { newTokenIds: [8], finish: 'length' }],
  ];
  it.each(finishes)('%s terminal output', (name, wire, expected) => {
    expect(hex(encodeOutputs({ engineIndex: 0, outputs: [wire], timestamp: TS }))).toEqual(V[name]);
    const ev = decodeOutput(frames(name));
    expect(ev).toEqual({ kind: 'batch', engineIndex: 0, outputs: [out(expected)], load: null, finishedRequests: null });
  });

  it('O4 engine-initiated abort with finished_requests', () => {
    const bytes = encodeOutputs({
      engineIndex: 0,
      outputs: [wireOut({ newTokenIds: [], finishReason: 2 })],
      timestamp: TS,
      finishedRequests: ['req-1'],
    });
    expect(hex(bytes)).toEqual(V.O4);
    expect(decodeOutput(frames('O4'))).toEqual({
      kind: 'batch',
      engineIndex: 0,
      outputs: [out({ newTokenIds: [], finish: 'abort' })],
      load: null,
      finishedRequests: ['req-1'],
    });
  });

  it('O5 wave_complete 7 from rank 1', () => {
    expect(hex(encodeOutputs({ engineIndex: 1, outputs: [], timestamp: TS, waveComplete: 7 }))).toEqual(V.O5);
    expect(decodeOutput(frames('O5'))).toEqual({ kind: 'wave_complete', engineIndex: 1, wave: 7 });
  });

  it('O6 utility result', () => {
    const bytes = encodeOutputs({
      engineIndex: 0,
      outputs: [],
      timestamp: TS,
      utility: { callId: 12345, failure: null, result: ['generate'] },
    });
    expect(hex(bytes)).toEqual(V.O6);
    expect(decodeOutput(frames('O6'))).toEqual({
      kind: 'utility',
      engineIndex: 0,
      callId: 12345,
      failure: null,
      result: ['generate'],
    });
  });

  it('O7 utility failure', () => {
    const failure = 'Call to foo method failed: boom';
    const bytes = encodeOutputs({ engineIndex: 0, outputs: [], timestamp: TS, utility: { callId: 12345, failure } });
    expect(hex(bytes)).toEqual(V.O7);
    expect(decodeOutput(frames('O7'))).toEqual({ kind: 'utility', engineIndex: 0, callId: 12345, failure, result: null });
  });

  it('O8 ENGINE_CORE_DEAD', () => {
    expect(ENGINE_CORE_DEAD.toString('hex')).toBe(V.O8[0]);
    expect(decodeOutput(frames('O8'))).toEqual({ kind: 'dead' });
  });

  it('O9 inline sample logprobs (ext 3)', () => {
    const logprobs = [
      {
        tokenId: 5,
        logprob: -0.25,
        rank: 1,
        top: [
          { tokenId: 5, logprob: -0.25 },
          { tokenId: 9, logprob: -1.5 },
        ],
      },
    ];
    const bytes = encodeOutputs({ engineIndex: 0, outputs: [wireOut({ logprobs })], timestamp: TS });
    expect(hex(bytes)).toEqual(V.O9);
    expect(decodeOutput(frames('O9'))).toEqual({
      kind: 'batch',
      engineIndex: 0,
      outputs: [out({ logprobs })],
      load: null,
      finishedRequests: null,
    });
  });

  it('O10 logprob arrays in aux frames 1..3', () => {
    const tokens = Array.from({ length: 32 }, (_, i) => i);
    const logprobs = tokens.map((r) => ({
      tokenId: 2 * r,
      logprob: -1,
      rank: 1,
      top: [{ tokenId: 2 * r + 1, logprob: -1 }],
    }));
    const aux1 = Buffer.alloc(256);
    for (let i = 0; i < 64; i++) aux1.writeInt32LE(i, i * 4);
    const aux2 = Buffer.alloc(256);
    for (let i = 0; i < 64; i++) aux2.writeFloatLE(-1, i * 4);
    const aux3 = Buffer.alloc(256);
    for (let i = 0; i < 32; i++) aux3.writeBigInt64LE(1n, i * 8);
    const expected = [V.O10[0], aux1.toString('hex'), aux2.toString('hex'), aux3.toString('hex')];

    const bytes = encodeOutputs({ engineIndex: 0, outputs: [wireOut({ newTokenIds: tokens, logprobs })], timestamp: TS });
    expect(hex(bytes)).toEqual(expected);
    const ev = decodeOutput(expected.map((h) => Buffer.from(h, 'hex')));
    expect(ev).toEqual({
      kind: 'batch',
      engineIndex: 0,
      outputs: [out({ newTokenIds: tokens, logprobs })],
      load: null,
      finishedRequests: null,
    });
  });
});
