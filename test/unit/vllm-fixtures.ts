/**
 * Hex test vectors of spec wire-vllm §6.3, frame by frame as the frontend's socket sees them
 * (for H/I that includes the identity frame). O10's aux frames are built in the test.
 */
import type { EngineRequest, SamplingSpec } from '../../src/engine/types.js';
import { encodeWith, type MsgpackWriter } from '../../src/engine/msgpack/writer.js';

export const VLLM_VECTORS = {
  H1: [
    '0000',
    '83a6737461747573a548454c4c4fa56c6f63616cc2a8686561646c657373c3',
  ],
  H2: [
    '0000',
    '82a961646472657373657385a6696e7075747391d9236970633a2f2f2f746d702f736d672d7a6d712f656e67696e652d302d696e2e736f636ba76f75747075747391d9246970633a2f2f2f746d702f736d672d7a6d712f656e67696e652d302d6f75742e736f636bb1636f6f7264696e61746f725f696e707574c0b2636f6f7264696e61746f725f6f7574707574c0be66726f6e74656e645f73746174735f7075626c6973685f61646472657373c0af706172616c6c656c5f636f6e66696780',
  ],
  H3: [
    '0000',
    'de0012ad6d61785f6d6f64656c5f6c656ecd1000ae6e756d5f6770755f626c6f636b73cd03e8aa626c6f636b5f73697a6510b064705f73746174735f61646472657373c0a56474797065a862666c6f61743136ac766c6c6d5f76657273696f6ea6302e32372e31aa776f726c645f73697a6501b2646174615f706172616c6c656c5f73697a6501b474656e736f725f706172616c6c656c5f73697a6501b6706970656c696e655f706172616c6c656c5f73697a6501bc6465636f64655f636f6e746578745f706172616c6c656c5f73697a6501b2646174615f706172616c6c656c5f72616e6b00ac6d61785f6e756d5f73657173cd0100b66d61785f6e756d5f626174636865645f746f6b656e73cd2000ab696e7374616e63655f6964a6696e73742d30b46b765f63616368655f73697a655f746f6b656e73cd3e80b86b765f63616368655f6d61785f636f6e63757272656e6379cb400f400000000000b06b765f6576656e74735f636f6e666967c0',
  ],
  H4: [
    '0000',
    '83a6737461747573a55245414459a56c6f63616cc2a8686561646c657373c3',
  ],
  H4b: [
    '0100',
    '84a6737461747573a55245414459a56c6f63616cc2a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368a83031323361626364',
  ],
  R1: [
    '0000',
    '00',
    'dc0014a57265712d3193010203c082ab74656d7065726174757265cb0000000000000000aa6d61785f746f6b656e7304c0cb41d954fc40000000c0c0c0c0c0000000c0c2c0c0c0c2',
  ],
  R1b: ['dc0014a57265712d3193010203c0de0006ab74656d7065726174757265cb0000000000000000a473746f7090ae73746f705f746f6b656e5f69647390aa6d61785f746f6b656e7304a96261645f776f72647390b9736b69705f72656164696e675f7072656669785f6361636865c2c0cb41d954fc40000000c0c0c0c0c0000000c0c2c0c0c0c2'],
  R1c: ['dc0014a57265712d3193010203c08cab74656d7065726174757265ca00000000a5746f705f70ca3f800000a5746f705f6b00aa6d61785f746f6b656e7304aa6d696e5f746f6b656e7300a56d696e5f70ca00000000b16672657175656e63795f70656e616c7479ca00000000b070726573656e63655f70656e616c7479ca00000000b272657065746974696f6e5f70656e616c7479ca3f800000ae73746f705f746f6b656e5f69647390ad5f656f735f746f6b656e5f696402b35f616c6c5f73746f705f746f6b656e5f6964739102c0cb41d954fc40000000c0c0c0c0c0000000c0c2c0c0c0c2'],
  R2: [
    '0000',
    '01',
    '91a57265712d31',
  ],
  R3: [
    '0100',
    '02',
    '9203c0',
  ],
  R4: [
    '0000',
    '03',
    '9400cd3039b36765745f737570706f727465645f7461736b7390',
  ],
  O1: ['9800919ea57265712d319105c0c0c0c0c0c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
  O1b: ['9800919ea57265712d319105c0c0c0c0c09282a47479706501a974696d657374616d70cb40c81ca00000000082a47479706502a974696d657374616d70cb40c81ca666666666c0c0c0c0c0008fb06e756d5f72756e6e696e675f7265717301b06e756d5f77616974696e675f7265717300b86e756d5f736b69707065645f77616974696e675f7265717300ac737465705f636f756e74657200ac63757272656e745f7761766500ae6b765f63616368655f7573616765cb3f50624dd2f1a9fcb27072656669785f63616368655f737461747387a57265736574c2a8726571756573747301a77175657269657303a46869747300b2707265656d707465645f726571756573747300b1707265656d707465645f7175657269657300ae707265656d707465645f6869747300bc636f6e6e6563746f725f7072656669785f63616368655f7374617473c0b86b765f63616368655f6576696374696f6e5f6576656e747390b3737065635f6465636f64696e675f7374617473c0b26b765f636f6e6e6563746f725f7374617473c0b577616974696e675f6c6f72615f616461707465727380b572756e6e696e675f6c6f72615f616461707465727380af6375646167726170685f7374617473c0aa706572665f7374617473c0cb40c81cc000000000c0c0c0c0'],
  O2: ['9800919ea57265712d319106c0c0c000c0c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
  O2b: ['9800919ea57265712d319107c0c0c00007c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
  O3: ['9800919ea57265712d319108c0c0c001c0c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
  O4: ['9800919ea57265712d3190c0c0c002c0c0c0c0c0c0c000c0cb40c81cc000000000c091a57265712d31c0c0'],
  O5: ['980190c0cb40c81cc000000000c0c007c0'],
  O6: ['980090c0cb40c81cc00000000093cd3039c092c091a867656e6572617465c0c0c0'],
  O7: ['980090c0cb40c81cc00000000093cd3039bf43616c6c20746f20666f6f206d6574686f64206661696c65643a20626f6f6dc0c0c0c0'],
  O8: ['454e47494e455f434f52455f44454144'],
  O9: ['9800919ea57265712d3191059493a33c6934920103c70c0305000000050000000900000093a33c6634920103c70c03000080be000080be0000c0bf93a33c69389101d7030100000000000000c0c0c0c0c0c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
  O10: ['9800919ea57265712d31dc0020000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f9493a33c69349220020193a33c66349220020293a33c6938912003c0c0c0c0c0c0c0c0c0c0c000c0cb40c81cc000000000c0c0c0c0'],
} as const satisfies Record<string, readonly string[]>;

export type VectorName = keyof typeof VLLM_VECTORS;

/** The vector's frames as Buffers. */
export function frames(name: VectorName): Buffer[] {
  return VLLM_VECTORS[name].map((h) => Buffer.from(h, 'hex'));
}

export function hex(bufs: readonly Uint8Array[]): string[] {
  return bufs.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
}

/** A SamplingSpec at vLLM's defaults (max_tokens 16), with overrides. */
export function samplingSpec(over: Partial<SamplingSpec> = {}): SamplingSpec {
  return {
    temperature: 1,
    topP: 1,
    topK: 0,
    minP: 0,
    presencePenalty: 0,
    frequencyPenalty: 0,
    repetitionPenalty: 1,
    seed: null,
    maxTokens: 16,
    minTokens: 0,
    stopTokenIds: [],
    eosTokenId: null,
    allStopTokenIds: [],
    ignoreEos: false,
    logprobs: null,
    promptLogprobs: null,
    logitBias: null,
    allowedTokenIds: null,
    badWordsTokenIds: null,
    structured: null,
    skipSpecialTokens: true,
    ...over,
  };
}

/** The request behind R1 (prompt [1,2,3], temperature 0, max_tokens 4), with overrides. */
export function r1Request(over: Partial<EngineRequest> = {}, sampling: Partial<SamplingSpec> = {}): EngineRequest {
  return {
    requestId: 'req-1',
    promptTokenIds: [1, 2, 3],
    sampling: samplingSpec({ temperature: 0, maxTokens: 4, ...sampling }),
    arrivalTime: 1700000000,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    ...over,
  };
}

type FieldWriter = (w: MsgpackWriter) => void;

/** R1's 20 EngineCoreRequest fields, one writer each, so tests can swap single fields. */
export const R1_FIELDS: readonly FieldWriter[] = [
  (w) => w.str('req-1'),
  (w) => w.intArray([1, 2, 3]),
  (w) => w.nil(),
  (w) => w.mapHeader(2).str('temperature').float64(0).str('max_tokens').int(4),
  (w) => w.nil(),
  (w) => w.float64(1700000000),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.int(0),
  (w) => w.int(0),
  (w) => w.int(0),
  (w) => w.nil(),
  (w) => w.bool(false),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.nil(),
  (w) => w.bool(false),
];

/**
 * An ADD payload built from R1's fields: `replace` swaps fields by index, `count` truncates or
 * (with `extra`) extends the array.
 */
export function addPayload(replace: Record<number, FieldWriter> = {}, count = 20, extra: FieldWriter[] = []): Buffer {
  return encodeWith((w) => {
    w.arrayHeader(count + extra.length);
    for (let i = 0; i < count; i++) (replace[i] ?? R1_FIELDS[i])(w);
    for (const f of extra) f(w);
  });
}

/** An ADD payload whose sampling map is written by `writeMap` (header included). */
export function addWithSampling(writeMap: FieldWriter): Buffer {
  return addPayload({ 3: writeMap });
}
