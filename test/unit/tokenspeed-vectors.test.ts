/**
 * Every hex vector of wire-tokenspeed.md §10 (plus the two msgspec-pinned vectors of §11):
 * encoded byte for byte by our side of the wire, and decoded back to normalized values.
 */
import { describe, expect, it } from 'vitest';
import { decodeInit, encodeInit } from '../../src/engine/handshake-messages.js';
import type { EngineRequest, SamplingSpec } from '../../src/engine/types.js';
import {
  encodeTokenSpeedAddFields,
  tokenspeedDialect,
  toTokenSpeedSampling,
} from '../../src/engine/dialects/tokenspeed/index.js';
import {
  admitTokenSpeedRequest,
  DEFAULT_ADMISSION_CONFIG,
  defaultRegistrationInfo,
  encodeTokenSpeedBatch,
  encodeTokenSpeedHello,
  encodeTokenSpeedReady,
  encodeTokenSpeedRegistration,
  LOGPROBS_DISABLED_MESSAGE,
  decodeTokenSpeedInput,
  tokenspeedDataPlane,
  tokenspeedDeathFrame,
  tokenspeedIdentity,
  type TsAddRequest,
  type TsOutputBatch,
} from '../../src/mock-engine/wire/tokenspeed/index.js';
import { samplingSpec } from '../support/sampling.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const HELLO =
  '84a6737461747573a548454c4c4fa56c6f63616cc3a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368c0';
const READY =
  '84a6737461747573a55245414459a56c6f63616cc3a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368c0';
const INIT =
  '82a961646472657373657385a6696e7075747391d92c6970633a2f2f2f746d702f736d672d7a6d712d313030302f656e67696e652d33313030302d696e2e736f636ba76f75747075747391d92d6970633a2f2f2f746d702f736d672d7a6d712d313030302f656e67696e652d33313030302d6f75742e736f636bb1636f6f7264696e61746f725f696e707574c0b2636f6f7264696e61746f725f6f7574707574c0be66726f6e74656e645f73746174735f7075626c6973685f61646472657373c0af706172616c6c656c5f636f6e66696780';
const REGISTRATION =
  'de0013ad6d61785f6d6f64656c5f6c656ecd8000ae6e756d5f6770755f626c6f636b73cd0800b27072656669785f6772616e756c617269747940b064705f73746174735f61646472657373c0a56474797065a862666c6f61743136b86d756c74696d6f64616c5f656e636f6465725f6474797065c0ac766c6c6d5f76657273696f6eb0746f6b656e73706565642d302e312e30aa776f726c645f73697a6502b2646174615f706172616c6c656c5f73697a6502b474656e736f725f706172616c6c656c5f73697a6501b6706970656c696e655f706172616c6c656c5f73697a6501bc6465636f64655f636f6e746578745f706172616c6c656c5f73697a6501b2646174615f706172616c6c656c5f72616e6b01ac6d61785f6e756d5f73657173cca0b66d61785f6e756d5f626174636865645f746f6b656e73cd2000ab696e7374616e63655f6964af5177656e2f5177656e332d302e3642b46b765f63616368655f73697a655f746f6b656e73ce00020000b86b765f63616368655f6d61785f636f6e63757272656e6379c0b06b765f6576656e74735f636f6e666967c0';

const ADD_REQ42 =
  '9bb9546f6b656e697a656447656e6572617465526571496e707574a67265712d3432c0c094ce0002505ccd0368ccc6cd25ebdc001d40c091ce0002505dcb3fe6666666666666cb3fe999999999999a14cb0000000000000000cb0000000000000000cb0000000000000000cb3ff000000000000000c0c0c0c0c2c3c3c2c0c0c0c0cd04d2c0019000c3c3ff00c0c3';
const ADD_REQ43 =
  '9bb9546f6b656e697a656447656e6572617465526571496e707574a67265712d3433c0c093ce0002505ccd0368ccc6dc001dc0c0c0cb3ff0000000000000cb3ff000000000000001cb0000000000000000cb0000000000000000cb0000000000000000cb3ff000000000000000b17b2274797065223a226f626a656374227dc0c0c0c2c3c3c2c0c0c0c0c0c0019000c3c2ff00c0c2';
const ABORT_REQ42 = '91a67265712d3432';

const BATCH_MAIN =
  '9ab34261746368546f6b656e49444f7574536c696d92a67265712d3432a57265712d379291cd26b294cd0311cd0f860dce0002505d92a0a473746f7092040c9202059200089291cbbfc0000000000000909291cd26b29005';
const BATCH_LOAD =
  '9eb34261746368546f6b656e49444f7574536c696d92a67265712d3432a57265712d379291cd26b294cd0311cd0f860dce0002505d92a0a473746f7092040c9202059200089291cbbfc0000000000000909291cd26b29005030178cd0800';
const DEAD = '454e47494e455f434f52455f44454144';

/** §11: the two vectors SMG captured from TokenSpeed's own msgspec encoder. */
const PIN_REQ =
  'dc0018b9546f6b656e697a656447656e6572617465526571496e707574a57665632d31c0c0' +
  '93010203dc001d08c09102cb3fe0000000000000cb3feccccccccccccdce40000000cb0000' +
  '000000000000cb0000000000000000cb0000000000000000cb3ff000000000000000c0c0c0' +
  'c0c2c3c3c2c0c0c0c02ac0019000c3c3ff00c0c3c0c0c0c2cb0000000000000000c0c0c0c0' +
  'c0c0c0c0';
const PIN_OUT =
  '99b34261746368546f6b656e49444f7574536c696d91a57665632d3191920a0b91a66c656e' +
  '6774689103910291019192cbbfe0000000000000cbbfd000000000000091920a0b';

const BASE = '/tmp/smg-zmq-1000/engine-31000';

/** TokenSpeed's unset top_k is -1; the EOS set is Qwen3's <|im_end|>. */
function spec(over: Partial<SamplingSpec> = {}): SamplingSpec {
  return samplingSpec({ topK: -1, eosTokenId: 151645, allStopTokenIds: [151645], ...over });
}

function request(requestId: string, promptTokenIds: number[], sampling: SamplingSpec, stream: boolean): EngineRequest {
  return {
    requestId,
    promptTokenIds,
    sampling,
    arrivalTime: 1_700_000_000,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    stream,
  };
}

const REQ42 = request(
  'req-42',
  [151644, 872, 198, 9707],
  spec({ maxTokens: 64, stopTokenIds: [151645], temperature: 0.7, topP: 0.8, topK: 20, seed: 1234, logprobs: 0 }),
  true,
);

function engineDecodeAdd(payload: Buffer): TsAddRequest {
  const msg = decodeTokenSpeedInput([Buffer.from([0]), payload]);
  if (msg.kind !== 'add') throw new Error(`expected add, got ${JSON.stringify(msg)}`);
  return msg.request;
}

describe('§10.1 handshake', () => {
  it('identity of --zmq-engine-index 4, DP rank 1 is 05 00', () => {
    expect(tokenspeedIdentity(4, 1).toString('hex')).toBe('0500');
  });

  it('HELLO and READY are the 4-key maps, byte for byte', () => {
    expect(encodeTokenSpeedHello().toString('hex')).toBe(HELLO);
    expect(encodeTokenSpeedReady().toString('hex')).toBe(READY);
  });

  it('INIT encodes byte for byte and yields the data-plane addresses', () => {
    const init = encodeInit(`ipc://${BASE}-in.sock`, `ipc://${BASE}-out.sock`);
    expect(init.toString('hex')).toBe(INIT);
    expect(tokenspeedDataPlane(decodeInit(hex(INIT)))).toEqual({
      input: `ipc://${BASE}-in.sock`,
      output: `ipc://${BASE}-out.sock`,
    });
  });

  it('registration encodes byte for byte (414 B)', () => {
    const bytes = encodeTokenSpeedRegistration(
      defaultRegistrationInfo({
        maxModelLen: 32768,
        numGpuBlocks: 2048,
        prefixGranularity: 64,
        dtype: 'bfloat16',
        vllmVersion: 'tokenspeed-0.1.0',
        worldSize: 2,
        dataParallelSize: 2,
        tensorParallelSize: 1,
        dataParallelRank: 1,
        maxNumSeqs: 160,
        maxNumBatchedTokens: 8192,
        instanceId: 'Qwen/Qwen3-0.6B',
        kvCacheSizeTokens: 131072,
      }),
    );
    expect(bytes.length).toBe(414);
    expect(bytes.toString('hex')).toBe(REGISTRATION);
  });

  it('registration decodes to the normalized Registration', () => {
    const reg = tokenspeedDialect.decodeRegistration(hex(REGISTRATION));
    const { raw, ...rest } = reg;
    expect(rest).toEqual({
      maxModelLen: 32768,
      numGpuBlocks: 2048,
      blockSize: 64,
      dtype: 'bfloat16',
      version: 'tokenspeed-0.1.0',
      worldSize: 2,
      dataParallelSize: 2,
      dataParallelRank: 1,
      tensorParallelSize: 1,
      maxNumSeqs: 160,
      maxNumBatchedTokens: 8192,
      instanceId: 'Qwen/Qwen3-0.6B',
    });
    expect(Object.keys(raw)).toHaveLength(19);
    expect(raw.kv_cache_size_tokens).toBe(131072);
  });
});

describe('§10.2 ADD', () => {
  it('req-42 encodes byte for byte as [00, payload] (142 B)', () => {
    const frames = tokenspeedDialect.encodeAdd(REQ42);
    expect(frames).toHaveLength(2);
    expect(frames[0].toString('hex')).toBe('00');
    expect(frames[1].length).toBe(142);
    expect(frames[1].toString('hex')).toBe(ADD_REQ42);
  });

  it('req-42 decodes engine-side to the sent values; the logprob gate aborts it by default', () => {
    const req = engineDecodeAdd(hex(ADD_REQ42));
    expect(req).toMatchObject({
      rid: 'req-42',
      inputIds: [151644, 872, 198, 9707],
      returnLogprob: true,
      logprobStartLen: -1,
      topLogprobsNum: 0,
      tokenIdsLogprob: null,
      stream: true,
      seedDerived: false,
      wireLength: 11,
    });
    expect(req.sampling).toMatchObject({
      maxNewTokens: 64,
      stopTokenIds: [151645],
      temperature: 0.7,
      topP: 0.8,
      topK: 20,
      repetitionPenalty: 1,
      seed: 1234,
      n: 1,
      stopStrs: [],
      stopStrMaxLen: 0,
      isNormalized: true,
    });
    expect(admitTokenSpeedRequest(req, DEFAULT_ADMISSION_CONFIG)).toBe(LOGPROBS_DISABLED_MESSAGE);
    expect(admitTokenSpeedRequest(req, { ...DEFAULT_ADMISSION_CONFIG, enableOutputLogprobs: true })).toBeNull();
  });

  it('req-43 (greedy, json_schema, no max_new_tokens, no seed) encodes byte for byte (149 B)', () => {
    const sampling = toTokenSpeedSampling(
      spec({ temperature: 0, structured: { kind: 'json_object' }, maxTokens: 1 }),
    );
    // The seam always carries a max; the vector shows SMG's "unset" form, nil.
    sampling.maxNewTokens = null;
    const payload = encodeTokenSpeedAddFields({
      rid: 'req-43',
      inputIds: [151644, 872, 198],
      sampling,
      returnLogprob: false,
      stream: false,
    });
    expect(payload.length).toBe(149);
    expect(payload.toString('hex')).toBe(ADD_REQ43);
  });

  it('req-43 via the Dialect differs only in max_new_tokens', () => {
    const req = request('req-43', [151644, 872, 198], spec({ temperature: 0, structured: { kind: 'json_object' } }), false);
    const ours = engineDecodeAdd(tokenspeedDialect.encodeAdd(req)[1]);
    const vector = engineDecodeAdd(hex(ADD_REQ43));
    expect(ours.sampling.maxNewTokens).toBe(16);
    expect({ ...ours, sampling: { ...ours.sampling, maxNewTokens: null } }).toEqual(vector);
  });

  it('req-43 decodes engine-side: greedy collapse, derived seed, grammar gate', () => {
    const req = engineDecodeAdd(hex(ADD_REQ43));
    expect(req.stream).toBe(false);
    expect(req.returnLogprob).toBe(false);
    expect(req.sampling).toMatchObject({
      maxNewTokens: null,
      stopTokenIds: null,
      temperature: 1,
      topK: 1,
      jsonSchema: '{"type":"object"}',
    });
    expect(req.seedDerived).toBe(true);
    expect(req.sampling.seed).toBe(1091991039);
    expect(admitTokenSpeedRequest(req, DEFAULT_ADMISSION_CONFIG)).toMatch(/grammar-backend none/);
    expect(admitTokenSpeedRequest(req, { ...DEFAULT_ADMISSION_CONFIG, grammarBackend: 'xgrammar' })).toBeNull();
  });
});

describe('§10.3 ABORT', () => {
  it('encodes as [01, ["req-42"]] and decodes engine-side', () => {
    const frames = tokenspeedDialect.encodeAbort(['req-42']);
    expect(frames.map((f) => f.toString('hex'))).toEqual(['01', ABORT_REQ42]);
    expect(decodeTokenSpeedInput(frames)).toEqual({ kind: 'abort', rids: ['req-42'] });
  });
});

describe('§10.4 output batch', () => {
  const batch: TsOutputBatch = {
    engineIndex: 5,
    rows: [
      {
        rid: 'req-42',
        outputIds: [9906],
        finishedReason: '',
        promptTokens: 4,
        completionTokens: 2,
        cachedTokens: 0,
        logprobVals: [-0.125],
        logprobIdx: [9906],
      },
      {
        rid: 'req-7',
        outputIds: [785, 3974, 13, 151645],
        finishedReason: 'stop',
        promptTokens: 12,
        completionTokens: 5,
        cachedTokens: 8,
        logprobVals: [],
        logprobIdx: [],
      },
    ],
    load: { numRunning: 3, numWaiting: 1, kvActivePages: 120, kvTotalPages: 2048 },
  };

  const expectedOutputs = [
    {
      requestId: 'req-42',
      newTokenIds: [9906],
      finish: null,
      stopReason: null,
      logprobs: [{ tokenId: 9906, logprob: -0.125, rank: null, top: [] }],
      cachedTokens: 0,
      errorMessage: null,
      promptTokens: 4,
      completionTokens: 2,
      endsWithStopToken: false,
    },
    {
      requestId: 'req-7',
      newTokenIds: [785, 3974, 13, 151645],
      finish: 'stop',
      stopReason: null,
      logprobs: null,
      cachedTokens: 8,
      errorMessage: null,
      promptTokens: 12,
      completionTokens: 5,
      endsWithStopToken: true,
    },
  ];

  it('main form (10 elements, 88 B) encodes byte for byte', () => {
    const bytes = encodeTokenSpeedBatch(batch, 10);
    expect(bytes.length).toBe(88);
    expect(bytes.toString('hex')).toBe(BATCH_MAIN);
  });

  it('load-branch form (14 elements, 94 B) encodes byte for byte', () => {
    const bytes = encodeTokenSpeedBatch(batch, 14);
    expect(bytes.length).toBe(94);
    expect(bytes.toString('hex')).toBe(BATCH_LOAD);
  });

  it('main form decodes: engine index 5, deltas, no load', () => {
    expect(tokenspeedDialect.decodeOutput([hex(BATCH_MAIN)])).toEqual({
      kind: 'batch',
      engineIndex: 5,
      outputs: expectedOutputs,
      load: null,
      finishedRequests: null,
    });
  });

  it('load-branch form decodes with load = 3 running, 1 waiting, 120/2048 KV', () => {
    expect(tokenspeedDialect.decodeOutput([hex(BATCH_LOAD)])).toEqual({
      kind: 'batch',
      engineIndex: 5,
      outputs: expectedOutputs,
      load: { numRunning: 3, numWaiting: 1, kvCacheUsage: 120 / 2048 },
      finishedRequests: null,
    });
  });
});

describe('§10.5 death sentinel', () => {
  it('is the 16 raw bytes and decodes as dead', () => {
    expect(tokenspeedDeathFrame().toString('hex')).toBe(DEAD);
    expect(tokenspeedDialect.decodeOutput([hex(DEAD)])).toEqual({ kind: 'dead' });
  });
});

describe('§11 msgspec-pinned vectors', () => {
  it('the full 24-element request decodes engine-side', () => {
    const req = engineDecodeAdd(hex(PIN_REQ));
    expect(req).toMatchObject({ rid: 'vec-1', inputIds: [1, 2, 3], returnLogprob: true, stream: true, wireLength: 24 });
    expect(req.sampling).toMatchObject({
      maxNewTokens: 8,
      stopTokenIds: [2],
      temperature: 0.5,
      topP: 0.9,
      topK: 1 << 30,
      seed: 42,
      isNormalized: true,
    });
  });

  it('the 9-element batch encodes byte for byte and decodes with engine index 0', () => {
    const bytes = encodeTokenSpeedBatch(
      {
        engineIndex: 0,
        rows: [
          {
            rid: 'vec-1',
            outputIds: [10, 11],
            finishedReason: 'length',
            promptTokens: 3,
            completionTokens: 2,
            cachedTokens: 1,
            logprobVals: [-0.5, -0.25],
            logprobIdx: [10, 11],
          },
        ],
      },
      9,
    );
    expect(bytes.toString('hex')).toBe(PIN_OUT);
    const ev = tokenspeedDialect.decodeOutput([hex(PIN_OUT)]);
    expect(ev).toMatchObject({ kind: 'batch', engineIndex: 0, load: null });
    if (ev.kind !== 'batch') throw new Error('not a batch');
    expect(ev.outputs[0]).toMatchObject({ finish: 'length', newTokenIds: [10, 11], endsWithStopToken: false });
    expect(ev.outputs[0].logprobs?.map((l) => l.logprob)).toEqual([-0.5, -0.25]);
  });
});

describe('Dialect surface', () => {
  it('has no lockstep waves', () => {
    expect(tokenspeedDialect.runtime).toBe('tokenspeed');
    expect(tokenspeedDialect.encodeStartWave(1)).toBeNull();
  });
});
