/**
 * Gateway-side tolerance of the TokenSpeed output and registration decoders (§6, §13): batch
 * arities 9/10/14 and partial tails, "no snapshot", extra trailing elements, aux frames, finish
 * strings, abort rows, and what must be rejected.
 */
import { describe, expect, it } from 'vitest';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import { WireDecodeError, type OutputEvent } from '../../src/engine/types.js';
import { encodeTokenSpeedAddPayload, tokenspeedDialect } from '../../src/engine/dialects/tokenspeed/index.js';
import {
  admissionAbortRow,
  decodeTokenSpeedInput,
  defaultRegistrationInfo,
  encodeTokenSpeedBatch,
  encodeTokenSpeedRegistration,
  type TsOutputRow,
} from '../../src/mock-engine/wire/tokenspeed/index.js';

const TAG = 'BatchTokenIDOutSlim';

/** A one-row batch as a JS array: tag, 8 columns, then whatever tail the test wants. */
function batch(tail: unknown[], row: Partial<{ ids: number[]; finish: string; lp: number[]; lpIdx: number[] }> = {}) {
  const ids = row.ids ?? [7, 8];
  return [TAG, ['r1'], [ids], [row.finish ?? ''], [3], [ids.length], [1], [row.lp ?? []], [row.lpIdx ?? []], ...tail];
}

const pack = (v: unknown): Buffer => encodeWith((w) => w.value(v));

function decodeBatch(v: unknown, extraFrames: Buffer[] = []): Extract<OutputEvent, { kind: 'batch' }> {
  const ev = tokenspeedDialect.decodeOutput([pack(v), ...extraFrames]);
  if (ev.kind !== 'batch') throw new Error(`expected a batch, got ${ev.kind}`);
  return ev;
}

describe('batch tails', () => {
  it('9 elements: engine index defaults to 0, no load', () => {
    const ev = decodeBatch(batch([]));
    expect(ev.engineIndex).toBe(0);
    expect(ev.load).toBeNull();
    expect(ev.outputs[0].newTokenIds).toEqual([7, 8]);
  });

  it('10 elements: engine index, no load', () => {
    const ev = decodeBatch(batch([3]));
    expect(ev.engineIndex).toBe(3);
    expect(ev.load).toBeNull();
  });

  it('14 elements with kv_total_pages > 0: load as an exact ratio', () => {
    const ev = decodeBatch(batch([2, 4, 5, 30, 120]));
    expect(ev.engineIndex).toBe(2);
    expect(ev.load).toEqual({ numRunning: 4, numWaiting: 5, kvCacheUsage: 0.25 });
  });

  it('14 elements with kv_total_pages 0: "no snapshot", not a fabricated idle load', () => {
    expect(decodeBatch(batch([2, 4, 5, 30, 0])).load).toBeNull();
  });

  it('partial tails (11..13 elements) default the missing load ints to 0 → no load', () => {
    expect(decodeBatch(batch([1, 4])).load).toBeNull();
    expect(decodeBatch(batch([1, 4, 5, 30])).load).toBeNull();
  });

  it('extra trailing elements are ignored', () => {
    const ev = decodeBatch(batch([1, 4, 5, 30, 120, 'future', [1, 2], { x: 1 }]));
    expect(ev.engineIndex).toBe(1);
    expect(ev.load).toEqual({ numRunning: 4, numWaiting: 5, kvCacheUsage: 0.25 });
  });

  it('aux frames after the payload are ignored', () => {
    const ev = decodeBatch(batch([1]), [Buffer.from('aux'), Buffer.alloc(0)]);
    expect(ev.outputs).toHaveLength(1);
  });

  it('the encoder writes zeros (= no snapshot) for arity 14 without load', () => {
    const bytes = encodeTokenSpeedBatch({ engineIndex: 1, rows: [] }, 14);
    const ev = tokenspeedDialect.decodeOutput([bytes]);
    expect(ev).toEqual({ kind: 'batch', engineIndex: 1, outputs: [], load: null, finishedRequests: null });
  });

  it('an empty batch decodes to no outputs', () => {
    expect(decodeBatch([TAG, [], [], [], [], [], [], [], [], 0]).outputs).toEqual([]);
  });
});

describe('rows', () => {
  it('finish strings map to FinishReason; unknown → stop (as SMG); error kept', () => {
    const finish = (f: string) => decodeBatch(batch([0], { finish: f })).outputs[0].finish;
    expect(finish('')).toBeNull();
    expect(finish('stop')).toBe('stop');
    expect(finish('length')).toBe('length');
    expect(finish('abort')).toBe('abort');
    expect(finish('error')).toBe('error');
    expect(finish('content_filter')).toBe('stop');
  });

  it('only a stop row with tokens flags its last token as the stop token', () => {
    const row = (f: string, ids: number[]) => decodeBatch(batch([0], { finish: f, ids })).outputs[0];
    expect(row('stop', [5, 151645]).endsWithStopToken).toBe(true);
    expect(row('stop', []).endsWithStopToken).toBe(false);
    expect(row('length', [5, 151645]).endsWithStopToken).toBe(false);
    expect(row('', [5]).endsWithStopToken).toBe(false);
    expect(row('stop', [5, 151645]).stopReason).toBeNull();
  });

  it('cumulative counters pass through unchanged', () => {
    const out = decodeBatch([TAG, ['a'], [[1]], [''], [9], [40], [6], [[]], [[]], 0]).outputs[0];
    expect(out).toMatchObject({ promptTokens: 9, completionTokens: 40, cachedTokens: 6, newTokenIds: [1] });
  });

  it('an admission-abort row (engine-side encoder) becomes an abort with a client-facing message', () => {
    const add = decodeTokenSpeedInput([
      Buffer.from([0]),
      encodeTokenSpeedAddPayload({
        requestId: 'bad',
        promptTokenIds: [1, 2, 3, 4],
        sampling: {
          temperature: 1, topP: 1, topK: 0, minP: 0, presencePenalty: 0, frequencyPenalty: 0, repetitionPenalty: 1,
          seed: null, maxTokens: 5, minTokens: 0, stopTokenIds: [], eosTokenId: null, allStopTokenIds: [],
          ignoreEos: false, logprobs: 1, promptLogprobs: null, logitBias: null, allowedTokenIds: null,
          badWordsTokenIds: null, structured: null, skipSpecialTokens: true,
        },
        arrivalTime: 0, cacheSalt: null, dataParallelRank: null, priority: 0,
      }),
    ]);
    if (add.kind !== 'add') throw new Error('expected add');
    const row: TsOutputRow = admissionAbortRow(add.request);
    const out = tokenspeedDialect.decodeOutput([encodeTokenSpeedBatch({ engineIndex: 0, rows: [row] })]);
    if (out.kind !== 'batch') throw new Error('expected batch');
    expect(out.outputs[0]).toMatchObject({
      requestId: 'bad',
      newTokenIds: [],
      finish: 'abort',
      logprobs: null,
      promptTokens: 4,
      completionTokens: 0,
      endsWithStopToken: false,
    });
    expect(out.outputs[0].errorMessage).toMatch(/rejected the request at admission/);
  });

  it('a runtime abort (tokens already produced) gets a different message', () => {
    const out = decodeBatch([TAG, ['a'], [[1]], ['abort'], [3], [4], [0], [[]], [[]], 0]).outputs[0];
    expect(out.finish).toBe('abort');
    expect(out.errorMessage).toMatch(/during generation/);
  });

  it('logprobs pair values with their ids; no rank, no alternatives', () => {
    const out = decodeBatch(batch([0], { ids: [7, 8], lp: [-1.5, -0.25], lpIdx: [7, 8] })).outputs[0];
    expect(out.logprobs).toEqual([
      { tokenId: 7, logprob: -1.5, rank: null, top: [] },
      { tokenId: 8, logprob: -0.25, rank: null, top: [] },
    ]);
  });
});

describe('rejected batches (WireDecodeError, the batch is dropped)', () => {
  const bad: Array<[string, () => unknown]> = [
    ['no frames', () => tokenspeedDialect.decodeOutput([])],
    ['not msgpack', () => tokenspeedDialect.decodeOutput([Buffer.from([0xc1])])],
    ['not an array', () => decodeBatch({ tag: TAG })],
    ['wrong tag', () => decodeBatch(['BatchTokenIDOut', ...batch([0]).slice(1)])],
    ['untagged (vLLM-shaped)', () => decodeBatch([0, [], null, 1.5])],
    ['fewer than 9 elements', () => decodeBatch(batch([]).slice(0, 8))],
    ['ragged columns', () => decodeBatch([TAG, ['a', 'b'], [[1]], ['', ''], [1, 1], [1, 1], [0, 0], [[], []], [[], []], 0])],
    ['non-string rid', () => decodeBatch([TAG, [5], [[1]], [''], [1], [1], [0], [[]], [[]], 0])],
    ['float token id', () => decodeBatch(batch([0], { ids: [1.5] }))],
    ['non-integer engine index', () => decodeBatch(batch(['x']))],
    ['logprob count differs from id count', () => decodeBatch(batch([0], { lp: [-1], lpIdx: [] }))],
  ];
  for (const [name, fn] of bad) {
    it(name, () => expect(fn).toThrow(WireDecodeError));
  }
});

describe('registration', () => {
  it('accepts the legacy block_size spelling', () => {
    const bytes = encodeTokenSpeedRegistration(defaultRegistrationInfo({ prefixGranularity: 16 }), 'block_size');
    expect(tokenspeedDialect.decodeRegistration(bytes).blockSize).toBe(16);
  });

  it('defaults everything but max_model_len and keeps unknown keys in raw', () => {
    const reg = tokenspeedDialect.decodeRegistration(pack({ max_model_len: 4096, future_key: [1] }));
    expect(reg).toEqual({
      maxModelLen: 4096,
      numGpuBlocks: 0,
      blockSize: 64,
      dtype: 'unknown',
      version: 'tokenspeed-unknown',
      worldSize: 1,
      dataParallelSize: 1,
      dataParallelRank: null,
      tensorParallelSize: 1,
      maxNumSeqs: null,
      maxNumBatchedTokens: null,
      instanceId: null,
      raw: { max_model_len: 4096, future_key: [1] },
    });
  });

  it('max_num_batched_tokens 0 ("no cap") becomes null', () => {
    const bytes = encodeTokenSpeedRegistration(defaultRegistrationInfo({ maxNumBatchedTokens: 0 }));
    expect(tokenspeedDialect.decodeRegistration(bytes).maxNumBatchedTokens).toBeNull();
  });

  const badRegs: Array<[string, Buffer]> = [
    ['empty payload', Buffer.alloc(0)],
    ['not a map', pack([1, 2])],
    ['missing max_model_len', pack({ num_gpu_blocks: 1 })],
    ['max_model_len of the wrong type', pack({ max_model_len: '4096' })],
    ['a present key of the wrong type', pack({ max_model_len: 4096, dtype: 5 })],
  ];
  for (const [name, bytes] of badRegs) {
    it(`rejects ${name}`, () => expect(() => tokenspeedDialect.decodeRegistration(bytes)).toThrow(WireDecodeError));
  }
});
