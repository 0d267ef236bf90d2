/**
 * Engine side of the TokenSpeed dialect, for fake engines: msgspec-strict input decoding (drops),
 * the engine's own finalization of raw requests, the admission aborts of §4.8, and identities.
 */
import { describe, expect, it } from 'vitest';
import { encodeWith, type MsgpackWriter } from '../../src/engine/msgpack/writer.js';
import {
  defaultSamplingParams,
  normalizeTokenSpeedSampling,
  SAMPLING_LAYOUT,
  TOP_K_ALL,
  writeTokenSpeedSampling,
  type TsSamplingParams,
} from '../../src/engine/dialects/tokenspeed/index.js';
import {
  admitTokenSpeedRequest,
  DEFAULT_ADMISSION_CONFIG,
  decodeTokenSpeedInput,
  tokenspeedEngineIndex,
  tokenspeedIdentity,
  type TsAddRequest,
  type TsAdmissionConfig,
} from '../../src/mock-engine/wire/tokenspeed/index.js';

type W = (w: MsgpackWriter) => void;
const val =
  (x: unknown): W =>
  (w) => {
    w.value(x);
  };
const f64 =
  (x: number): W =>
  (w) => {
    w.float64(x);
  };

/** A 29-slot sampling array (normalized defaults) with per-slot overrides by engine name. */
function sampling(over: Partial<Record<keyof TsSamplingParams, W>> = {}, extra: W[] = []): W {
  const base = normalizeTokenSpeedSampling(defaultSamplingParams());
  return (w) => {
    if (Object.keys(over).length === 0 && extra.length === 0) {
      writeTokenSpeedSampling(w, base);
      return;
    }
    w.arrayHeader(SAMPLING_LAYOUT.length + extra.length);
    for (const slot of SAMPLING_LAYOUT) {
      const custom = over[slot.key];
      if (custom) custom(w);
      else if (slot.kind === 'float') w.float64(base[slot.key] as number);
      else w.value(base[slot.key]);
    }
    for (const e of extra) e(w);
  };
}

/** ADD payload: tag, rid, nil, nil, ids, sampling, return_logprob, −1, 0, nil, stream; overridable. */
function add(over: Record<number, W> = {}, length = 11): Buffer {
  const fields: W[] = [
    val('TokenizedGenerateReqInput'),
    val('r1'),
    val(null),
    val(null),
    val([1, 2, 3]),
    sampling(),
    val(false),
    val(-1),
    val(0),
    val(null),
    val(true),
  ];
  // Slots 11..23 at their defaults: return_hidden_states is a bool and created_time a float.
  const tail: W[] = [val(null), val(null), val(null), val(false), f64(0)];
  while (fields.length < length) fields.push(tail[fields.length - 11] ?? val(null));
  for (const [i, f] of Object.entries(over)) fields[Number(i)] = f;
  return encodeWith((w) => {
    w.arrayHeader(length);
    fields.slice(0, length).forEach((f) => f(w));
  });
}

const ADD = Buffer.from([0]);
const ABORT = Buffer.from([1]);

function decodeAdd(payload: Buffer): TsAddRequest {
  const msg = decodeTokenSpeedInput([ADD, payload]);
  if (msg.kind !== 'add') throw new Error(`dropped: ${JSON.stringify(msg)}`);
  return msg.request;
}

const expectDrop = (frames: Buffer[]) => expect(decodeTokenSpeedInput(frames).kind).toBe('drop');

describe('input framing and strictness (drop = no reply at all)', () => {
  it('drops fewer than 2 frames and unknown type bytes', () => {
    expectDrop([ADD]);
    expectDrop([Buffer.from([2]), add()]);
    expectDrop([Buffer.from([3]), add()]);
    expectDrop([Buffer.from([0, 0]), add()]);
  });

  it('drops non-msgpack, non-array, wrong tag and arrays shorter than 6', () => {
    expectDrop([ADD, Buffer.from([0xc1])]);
    expectDrop([ADD, encodeWith((w) => w.value({ rid: 'r1' }))]);
    expectDrop([ADD, add({ 0: val('GenerateReqInput') })]);
    expectDrop([ADD, add({}, 5)]);
  });

  it('drops a nil rid and msgspec type mismatches', () => {
    expectDrop([ADD, add({ 1: val(null) })]);
    expectDrop([ADD, add({ 1: (w) => w.bin(Buffer.from('r1')) })]); // bin where str is declared
    expectDrop([ADD, add({ 6: val(1) })]); // int where bool is declared
    expectDrop([ADD, add({ 7: f64(-1) })]); // float where int is declared
    expectDrop([ADD, add({ 4: val([1, 2.5]) })]);
    expectDrop([ADD, add({ 5: val({ max_new_tokens: 3 }) })]); // sampling as a map
    expectDrop([ADD, add({ 5: sampling({ maxNewTokens: f64(8) }) })]); // 8.0 in an int slot
    expectDrop([ADD, add({ 5: sampling({ ignoreEos: val(0) }) })]);
    expectDrop([ADD, add({ 5: sampling({ jsonSchema: val({ type: 'object' }) }) })]);
  });

  it('float slots accept integers (JS encoders write 1.0 as 1)', () => {
    const req = decodeAdd(add({ 5: sampling({ temperature: val(1), topP: val(1) }) }));
    expect(req.sampling).toMatchObject({ temperature: 1, topP: 1 });
  });

  it('ABORT carries an array of str; anything else is dropped', () => {
    expect(decodeTokenSpeedInput([ABORT, encodeWith((w) => w.strArray(['a', 'b']))])).toEqual({
      kind: 'abort',
      rids: ['a', 'b'],
    });
    expectDrop([ABORT, encodeWith((w) => w.value('a'))]);
    expectDrop([ABORT, encodeWith((w) => w.value(['a', 1]))]);
  });

  it('aux frames after the payload are tolerated', () => {
    expect(decodeTokenSpeedInput([ADD, add(), Buffer.from('aux')]).kind).toBe('add');
  });
});

describe('defaults, prefixes and extras', () => {
  it('a 6-element ADD takes the defaults of every later field', () => {
    const req = decodeAdd(add({}, 6));
    expect(req).toMatchObject({
      returnLogprob: false,
      logprobStartLen: -1,
      topLogprobsNum: 0,
      tokenIdsLogprob: null,
      stream: false,
      sessionId: null,
      validationError: null,
      wireLength: 6,
    });
  });

  it('extra trailing elements are ignored, also in sampling_params', () => {
    const long = add({ 5: sampling({}, [val(null), val(5)]) }, 24);
    const withExtra = encodeWith((w) => {
      w.arrayHeader(26);
      w.raw(long.subarray(3)); // drop the array16 header of 24, keep the body
      w.str('future').int(1);
    });
    const req = decodeAdd(withExtra);
    expect(req.wireLength).toBe(26);
    expect(req.sampling.isNormalized).toBe(true);
  });

  it('a short raw sampling array is defaulted and then normalized by the engine rules', () => {
    const raw: W = (w) => {
      w.arrayHeader(4);
      w.int(10).value(['END', 'ab']).value([]).float64(0);
    };
    const req = decodeAdd(add({ 5: raw }));
    expect(req.sampling).toMatchObject({
      maxNewTokens: 10,
      stopStrs: ['END', 'ab'],
      stopStrMaxLen: 3,
      stopTokenIds: null,
      temperature: 1,
      topK: 1,
      isNormalized: true,
    });
  });

  it('top_k −1 in the raw form becomes 1<<30', () => {
    const raw: W = (w) => {
      w.arrayHeader(0);
    };
    expect(decodeAdd(add({ 5: raw })).sampling.topK).toBe(TOP_K_ALL);
  });

  it('session id and validation_error are picked up', () => {
    const req = decodeAdd(add({ 12: val(['s1', null, 0, false]), 23: val('bad prompt') }, 24));
    expect(req.sessionId).toBe('s1');
    expect(req.validationError).toBe('bad prompt');
  });
});

describe('admission aborts (§4.8)', () => {
  const ok: TsAdmissionConfig = { enableOutputLogprobs: true, grammarBackend: 'xgrammar', vocabSize: 100 };
  const verdict = (over: Partial<Record<keyof TsSamplingParams, W>>, cfg = ok, top: Record<number, W> = {}) =>
    admitTokenSpeedRequest(decodeAdd(add({ 5: sampling(over), ...top }, 24)), cfg);

  it('admits a plain request', () => {
    expect(verdict({})).toBeNull();
    expect(verdict({ topK: val(TOP_K_ALL) })).toBeNull();
    expect(verdict({ topK: val(127) })).toBeNull();
  });

  const cases: Array<[string, Partial<Record<keyof TsSamplingParams, W>>, RegExp]> = [
    ['n ≠ 1', { n: val(2) }, /n must be 1/],
    ['negative temperature', { temperature: f64(-0.5) }, /temperature/],
    ['top_p 0 (errata 2)', { topP: f64(0) }, /top_p/],
    ['top_p above 1', { topP: f64(1.5) }, /top_p/],
    ['top_k 0', { topK: val(0) }, /top_k/],
    ['top_k below −1', { topK: val(-2) }, /top_k/],
    ['top_k 128', { topK: val(128) }, /top_k/],
    ['min_p above 1', { minP: f64(1.5) }, /min_p/],
    ['frequency penalty', { frequencyPenalty: f64(2.5) }, /frequency_penalty/],
    ['presence penalty', { presencePenalty: f64(-3) }, /presence_penalty/],
    ['repetition penalty', { repetitionPenalty: f64(2.5) }, /repetition_penalty/],
    ['negative min_new_tokens', { minNewTokens: val(-1) }, /min_new_tokens/],
    ['negative max_new_tokens', { maxNewTokens: val(-1) }, /max_new_tokens/],
    ['max below min', { maxNewTokens: val(2), minNewTokens: val(3) }, /max_new_tokens/],
    ['logprobs slot 1', { logprobs: val(1) }, /logprobs/],
    ['logit_bias out of vocab', { logitBias: (w) => w.mapHeader(1).str('100').float64(1) }, /logit_bias/],
    ['two grammars', { jsonSchema: val('{}'), regex: val('a') }, /only one of/],
  ];
  for (const [name, over, re] of cases) {
    it(`aborts on ${name}`, () => expect(verdict(over)).toMatch(re));
  }

  it('logprobs 0 is allowed; structural_tag does not count toward the one-grammar rule', () => {
    expect(verdict({ logprobs: val(0) })).toBeNull();
    expect(verdict({ jsonSchema: val('{}'), structuralTag: val('{}') })).toBeNull();
  });

  it('any grammar field aborts under --grammar-backend none, including structural_tag', () => {
    const none: TsAdmissionConfig = { ...ok, grammarBackend: 'none' };
    expect(verdict({ regex: val('a+') }, none)).toMatch(/grammar-backend none/);
    expect(verdict({ structuralTag: val('{}') }, none)).toMatch(/grammar-backend none/);
  });

  it('return_logprob without --enable-output-logprobs aborts (defaults are off/none)', () => {
    expect(verdict({}, DEFAULT_ADMISSION_CONFIG, { 6: val(true) })).toMatch(/--enable-output-logprobs/);
    expect(verdict({}, DEFAULT_ADMISSION_CONFIG)).toBeNull();
  });

  it('session id and validation_error abort', () => {
    expect(verdict({}, ok, { 12: val(['s9', null, 0, false]) })).toMatch(/session id s9 does not exist/);
    expect(verdict({}, ok, { 23: val('prompt too long') })).toBe('prompt too long');
  });
});

describe('identity rule', () => {
  it('is uint16 LE of --zmq-engine-index + DP rank', () => {
    expect(tokenspeedIdentity(0).toString('hex')).toBe('0000');
    expect(tokenspeedIdentity(4, 1).toString('hex')).toBe('0500');
    expect(tokenspeedIdentity(300, 2).toString('hex')).toBe('2e01');
    expect(tokenspeedEngineIndex(65534, 1)).toBe(65535);
  });

  it('fails like the engine when the sum does not fit uint16', () => {
    expect(() => tokenspeedIdentity(65535, 1)).toThrow(RangeError);
    expect(() => tokenspeedIdentity(-1)).toThrow(RangeError);
  });
});
