/** Gateway-side output decoding: tolerance rules (spec wire-vllm §4.2, §5) and logprob arrays. */
import { describe, expect, it } from 'vitest';
import { decodeLogprobRows, decodeOutput } from '../../src/engine/dialects/vllm/index.js';
import { encodeOutputs, writeLogprobRows, type WireOutputs } from '../../src/mock-engine/wire/vllm/index.js';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import { decodeMsgpack } from '../../src/engine/msgpack/reader.js';
import { WireDecodeError, type OutputEvent, type TokenLogprob } from '../../src/engine/types.js';
import { frames } from './vllm-fixtures.js';

const base: WireOutputs = {
  engineIndex: 2,
  outputs: [{ requestId: 'a', newTokenIds: [1, 2], finishReason: 0, stopReason: 2 }],
  schedulerStats: { numRunningReqs: 3, numWaitingReqs: 4, kvCacheUsage: 0.5 },
  timestamp: 1.5,
};

function batch(ev: OutputEvent): Extract<OutputEvent, { kind: 'batch' }> {
  if (ev.kind !== 'batch') throw new Error(`expected a batch, got ${ev.kind}`);
  return ev;
}

describe('tolerance', () => {
  it('ignores extra trailing elements in the envelope and in outputs (newer vLLM)', () => {
    const plain = decodeOutput(encodeOutputs(base));
    const longer = decodeOutput(
      encodeOutputs({
        ...base,
        extraFields: ['future', 1, null],
        outputs: [{ ...base.outputs[0], extraFields: [['h1'], null, { x: 1 }, 7] }],
      }),
    );
    expect(longer).toEqual(plain);
    expect(batch(plain).load).toEqual({ numRunning: 3, numWaiting: 4, kvCacheUsage: 0.5 });
  });

  it('defaults missing trailing optional elements', () => {
    const msg = encodeWith((w) => {
      w.arrayHeader(2).int(1).arrayHeader(1);
      w.arrayHeader(2).str('r').intArray([9]);
    });
    expect(decodeOutput([msg])).toEqual({
      kind: 'batch',
      engineIndex: 1,
      outputs: [
        {
          requestId: 'r',
          newTokenIds: [9],
          finish: null,
          stopReason: null,
          logprobs: null,
          cachedTokens: null,
          errorMessage: null,
          endsWithStopToken: false,
        },
      ],
      load: null,
      finishedRequests: null,
    });
  });

  it('maps an unknown finish reason (5) to error instead of failing the batch', () => {
    const ev = batch(decodeOutput(encodeOutputs({ ...base, outputs: [{ requestId: 'a', newTokenIds: [], finishReason: 5 }] })));
    expect(ev.outputs[0].finish).toBe('error');
  });

  it('maps REPETITION (4) and ERROR (3)', () => {
    const ev = batch(
      decodeOutput(
        encodeOutputs({
          ...base,
          outputs: [
            { requestId: 'a', newTokenIds: [1], finishReason: 4 },
            { requestId: 'b', newTokenIds: [], finishReason: 3 },
          ],
        }),
      ),
    );
    expect(ev.outputs.map((o) => o.finish)).toEqual(['repetition', 'error']);
  });

  it('accepts a str stop_reason', () => {
    const ev = batch(decodeOutput(encodeOutputs({ ...base, outputs: [{ requestId: 'a', newTokenIds: [3], finishReason: 0, stopReason: '</s>' }] })));
    expect(ev.outputs[0].stopReason).toBe('</s>');
  });

  it('reads cached tokens from prefill_stats', () => {
    const prefillStats = {
      numPromptTokens: 10,
      numComputedTokens: 10,
      numCachedTokens: 6,
      numLocalCachedTokens: 6,
      numExternalCachedTokens: 0,
      numCacheCreationTokens: 4,
    };
    const ev = batch(decodeOutput(encodeOutputs({ ...base, outputs: [{ requestId: 'a', newTokenIds: [1], prefillStats }] })));
    expect(ev.outputs[0].cachedTokens).toBe(6);
  });

  it('a stats-only step is an empty batch with load', () => {
    const ev = batch(decodeOutput(encodeOutputs({ ...base, outputs: [] })));
    expect(ev.outputs).toEqual([]);
    expect(ev.load?.numRunning).toBe(3);
  });

  it('start_wave', () => {
    expect(decodeOutput(encodeOutputs({ engineIndex: 3, outputs: [], timestamp: 0, startWave: 9 }))).toEqual({
      kind: 'start_wave',
      engineIndex: 3,
      wave: 9,
    });
  });
});

describe('rejections', () => {
  it('refuses pickle ext types with vLLM\'s message', () => {
    const msg = encodeWith((w) => w.arrayHeader(8).int(0).arrayHeader(1).ext(1, Buffer.from('x')));
    expect(() => decodeOutput([msg])).toThrow(new WireDecodeError('Extension type code 1 is not supported'));
  });

  it('a 16-byte DEAD frame followed by more frames is not the sentinel', () => {
    expect(() => decodeOutput([...frames('O8'), Buffer.from([0])])).toThrow(WireDecodeError);
  });

  it.each([
    ['not an array', encodeWith((w) => w.mapHeader(0))],
    ['truncated', frames('O1')[0].subarray(0, 20)],
    ['request_id as bin', encodeWith((w) => w.arrayHeader(2).int(0).arrayHeader(1).arrayHeader(2).bin(Buffer.from('r')).intArray([1]))],
    ['float token id', encodeWith((w) => w.arrayHeader(2).int(0).arrayHeader(1).arrayHeader(2).str('r').arrayHeader(1).float64(1.5))],
    ['finish_reason as str', encodeWith((w) => w.arrayHeader(2).int(0).arrayHeader(1).arrayHeader(6).str('r').arrayHeader(0).nil().nil().nil().str('stop'))],
  ])('%s', (_name, msg) => {
    expect(() => decodeOutput([msg])).toThrow(WireDecodeError);
  });
});

describe('ndarrays', () => {
  const rows: TokenLogprob[] = [
    { tokenId: 7, logprob: -0.5, rank: 2, top: [{ tokenId: 3, logprob: -0.25 }] },
    { tokenId: 8, logprob: -2, rank: 1, top: [{ tokenId: 8, logprob: -2 }] },
  ];

  it('round-trips torch dtype spellings (prompt logprobs)', () => {
    const aux: Buffer[] = [];
    const bytes = encodeWith((w) => writeLogprobRows(w, rows, aux, 'torch'));
    const plain = decodeMsgpack(bytes) as unknown[];
    expect((plain[0] as unknown[])[0]).toBe('int32');
    expect(decodeLogprobRows(plain, [bytes, ...aux], 'p')).toEqual(rows);
  });

  it('copies ext 3 bytes into their own buffer (offset 0, so typed arrays work)', () => {
    const plain = decodeMsgpack(frames('O9')[0]) as unknown[][][];
    const data = (plain[1][0][2] as unknown[])[0] as unknown[];
    const raw = data[2] as Uint8Array;
    expect(raw.byteOffset).toBe(0);
    expect(Array.from(new Int32Array(raw.buffer))).toEqual([5, 5, 9]);
  });

  it('puts arrays of >= 256 bytes in aux frames, smaller ones inline', () => {
    const wide: TokenLogprob[] = [
      { tokenId: 1, logprob: -1, rank: 1, top: Array.from({ length: 63 }, (_, i) => ({ tokenId: i, logprob: -1 })) },
    ];
    const aux: Buffer[] = [];
    encodeWith((w) => writeLogprobRows(w, wide, aux));
    // ids and logprobs are 1 x 64 x 4 = 256 bytes; ranks are 8 bytes and stay inline.
    expect(aux.map((b) => b.length)).toEqual([256, 256]);
  });

  it.each([
    ['byte length mismatch', ['<i4', [1, 2], new Uint8Array(4)]],
    ['unknown dtype', ['<c8', [1], new Uint8Array(8)]],
    ['aux index past the end', ['<i4', [64], 5]],
    ['aux index 0 (the msgpack frame)', ['<i4', [64], 0]],
  ])('rejects %s', (_name, arr) => {
    const tuple = [arr, ['<f4', [1, 2], new Uint8Array(8)], null, null];
    expect(() => decodeLogprobRows(tuple, [Buffer.alloc(0)], 'x')).toThrow(WireDecodeError);
  });

  it('accepts numpy and torch spellings for the same data', () => {
    const ids = new Uint8Array(new Int32Array([4]).buffer);
    const lps = new Uint8Array(new Float32Array([-1]).buffer);
    const a = decodeLogprobRows([['<i4', [1, 1], ids], ['<f4', [1, 1], lps], null, null], [], 'x');
    const b = decodeLogprobRows([['int32', [1, 1], ids], ['float32', [1, 1], lps], null, null], [], 'x');
    expect(a).toEqual([{ tokenId: 4, logprob: -1, rank: null, top: [] }]);
    expect(b).toEqual(a);
  });
});
