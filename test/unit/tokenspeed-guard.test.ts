/**
 * The TokenSpeed wire guard (src/engine/dialects/tokenspeed/guard.ts): every seam value that
 * becomes a slot is type-checked at runtime, the engine's admission table runs on the normalized
 * slots, a refusal names the wire field, valid requests keep their exact bytes, and whatever the
 * guard lets through is neither dropped by the fake engine's strict decoder nor aborted at its
 * admission, nor one of the §4.8 "not validated" values that crash a real engine.
 */
import { describe, expect, it } from 'vitest';
import {
  PROMPT_LOGPROBS_UNSUPPORTED,
  tokenspeedDialect,
  TOP_K_ALL,
  WireFieldError,
} from '../../src/engine/dialects/tokenspeed/index.js';
import {
  admitTokenSpeedRequest,
  decodeTokenSpeedInput,
  type TsAddRequest,
  type TsAdmissionConfig,
} from '../../src/mock-engine/wire/tokenspeed/index.js';
import { MAX_JSON_DEPTH } from '../../src/engine/dialects/guard-checks.js';
import { WireEncodeError, type EngineRequest, type SamplingSpec } from '../../src/engine/types.js';
import { TOKENSPEED_VALID_CASES } from '../support/guard-cases.js';
import { TOKENSPEED_GOLDEN_HEX } from '../support/guard-golden.js';
import { samplingSpec } from '../support/sampling.js';
import {
  BOOL_WRONG,
  FLOAT_WRONG,
  INT_WRONG,
  STRING_WRONG,
  TOKEN_ID_WRONG,
  TOKEN_LIST_WRONG,
  deepObject,
  mulberry32,
  type Wrong,
} from '../support/guard-test-kit.js';

/** An engine that admits everything the wire can carry (logprobs on, xgrammar). */
const PERMISSIVE: TsAdmissionConfig = { enableOutputLogprobs: true, grammarBackend: 'xgrammar', vocabSize: null };

function base(over: Partial<EngineRequest> = {}, sampling: Record<string, unknown> = {}): EngineRequest {
  return {
    requestId: 'r1',
    promptTokenIds: [1, 2, 3],
    sampling: samplingSpec({ topK: -1, maxTokens: 16, ...(sampling as Partial<SamplingSpec>) }),
    arrivalTime: 0,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    ...over,
  };
}

function refusal(req: unknown): WireFieldError | null {
  try {
    tokenspeedDialect.encodeAdd(req as EngineRequest);
    return null;
  } catch (err) {
    if (err instanceof WireFieldError) return err;
    throw err;
  }
}

function expectRefused(req: unknown, field: string, text: string | RegExp): void {
  const err = refusal(req);
  expect(err, `no refusal for ${field}`).not.toBeNull();
  expect(err).toBeInstanceOf(WireEncodeError);
  expect(err!.field).toBe(field);
  expect(err!.message.startsWith(`${field}: `)).toBe(true);
  expect(err!.message).toMatch(text);
}

const withReq = (key: keyof EngineRequest, value: unknown): unknown => ({ ...base(), [key]: value });
const withSp = (over: Record<string, unknown>): unknown => base({}, over);

/** Decoded by the fake engine, or the reason it would drop or abort the request. */
function engineVerdict(frames: Buffer[]): { request: TsAddRequest } | { refused: string } {
  const msg = decodeTokenSpeedInput(frames);
  if (msg.kind !== 'add') return { refused: `dropped: ${JSON.stringify(msg)}` };
  const abort = admitTokenSpeedRequest(msg.request, PERMISSIVE);
  return abort === null ? { request: msg.request } : { refused: `aborted at admission: ${abort}` };
}

/** §4.8 "Not validated (gateway must enforce)": values the engine takes and then crashes on. */
function crashHazard(r: TsAddRequest): string | null {
  const sp = r.sampling;
  if (r.inputIds === null || r.inputIds.length === 0) return 'empty input_ids';
  if (r.inputIds.some((id) => id < 0 || id >= 2 ** 31)) return 'token id outside int32';
  if (sp.temperature === 0) return 'temperature 0 with is_normalized';
  if (sp.topK === -1) return 'top_k -1 with is_normalized';
  if (sp.streamInterval === 0) return 'stream_interval 0';
  if (!r.seedDerived && !(sp.seed !== null && sp.seed >= 0 && sp.seed < 2 ** 63)) return 'seed outside int64';
  if (!sp.isNormalized) return 'not normalized';
  return null;
}

describe('type checks: every slot-bound field, every wrong JSON type', () => {
  const floats: Array<[string, string]> = [
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['minP', 'min_p'],
    ['frequencyPenalty', 'frequency_penalty'],
    ['presencePenalty', 'presence_penalty'],
    ['repetitionPenalty', 'repetition_penalty'],
  ];
  for (const [key, wire] of floats) {
    it.each(FLOAT_WRONG)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a finite number, got ${got}`);
    });
  }

  const ints: Array<[string, string]> = [
    ['maxTokens', 'max_new_tokens'],
    ['topK', 'top_k'],
    ['minTokens', 'min_new_tokens'],
  ];
  for (const [key, wire] of ints) {
    it.each(INT_WRONG)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a whole number (safe integer), got ${got}`);
    });
  }

  it.each([...INT_WRONG, ...FLOAT_WRONG].filter(([n]) => n !== 'null'))('sampling_params.seed = %s', (_n, value, got) => {
    expectRefused(withSp({ seed: value }), 'sampling_params.seed', `seed must be an integer in [0, 2^53), got ${got}`);
  });

  it.each(INT_WRONG.filter(([n]) => n !== 'null'))('return_logprob (logprobs) = %s', (_n, value, got) => {
    expectRefused(withSp({ logprobs: value }), 'return_logprob', `expected a whole number (safe integer), got ${got}`);
  });

  for (const [key, wire] of [['ignoreEos', 'ignore_eos'], ['skipSpecialTokens', 'skip_special_tokens']] as const) {
    it.each(BOOL_WRONG)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a boolean, got ${got}`);
    });
  }

  it.each(BOOL_WRONG.filter(([n]) => n !== 'undefined'))('stream = %s', (_n, value, got) => {
    expectRefused(withReq('stream', value), 'stream', `expected a boolean, got ${got}`);
  });

  it.each(STRING_WRONG)('rid = %s', (_n, value, text) => {
    expectRefused(withReq('requestId', value), 'rid', text);
  });

  const lists: Array<[string, (v: unknown) => unknown, string]> = [
    ['input_ids', (v) => withReq('promptTokenIds', v), 'input_ids'],
    ['stop_token_ids', (v) => withSp({ stopTokenIds: v }), 'sampling_params.stop_token_ids'],
  ];
  for (const [name, build, field] of lists) {
    it.each(TOKEN_LIST_WRONG)(`${name} = %s`, (_n, value, got) => {
      expectRefused(build(value), field, `expected a list of token ids, got ${got}`);
    });
    it.each(TOKEN_ID_WRONG)(`${name} element = %s`, (_n, value, text) => {
      expectRefused(build([1, value]), `${field}[1]`, text);
    });
  }

  it('logit_bias: a Map of token id → finite number (this wire has no clamp)', () => {
    const field = 'sampling_params.logit_bias';
    expectRefused(withSp({ logitBias: { 5: 1 } }), field, 'expected a Map of token id to bias, got object');
    expectRefused(withSp({ logitBias: [[5, 1]] }), field, 'got array');
    expectRefused(withSp({ logitBias: new Map([['5', 1]]) }), `${field} key`, 'got string');
    expectRefused(withSp({ logitBias: new Map([[-1, 1]]) }), `${field} key`, 'must not be negative');
    expectRefused(withSp({ logitBias: new Map([[5, Number.NaN]]) }), `${field}[5]`, 'expected a finite number, got NaN');
    expectRefused(withSp({ logitBias: new Map([[5, Infinity]]) }), `${field}[5]`, 'got Infinity');
    expectRefused(withSp({ logitBias: new Map([[5, '1']]) }), `${field}[5]`, 'got string');
  });

  it('prompt logprobs: SMG text, whatever the value', () => {
    for (const v of [0, 1, -1, '1', true, []]) {
      const err = refusal(withSp({ promptLogprobs: v }));
      expect(err?.field).toBe('sampling_params.prompt_logprobs');
      expect(err?.message).toBe(PROMPT_LOGPROBS_UNSUPPORTED);
    }
  });

  it('allowed_token_ids and bad words have no slot: refused, not silently dropped', () => {
    expectRefused(withSp({ allowedTokenIds: [1] }), 'sampling_params.allowed_token_ids', 'not supported over the TokenSpeed ZMQ backend');
    expectRefused(withSp({ badWordsTokenIds: [[1]] }), 'sampling_params.bad_words', 'not supported over the TokenSpeed ZMQ backend');
  });

  it('the request and its sampling must be objects', () => {
    expectRefused(null, 'request', 'expected an object, got null');
    expectRefused(withReq('sampling', 7), 'sampling_params', 'expected an object, got number');
  });
});

describe('grammar slots: one string each', () => {
  const SP = 'sampling_params';
  const schema = (s: unknown) => withSp({ structured: { kind: 'json_schema', schema: s } });

  it('names the bad schema in the words a user can act on', () => {
    expect(refusal(schema(5))?.message).toBe(`${SP}.json_schema: expected a JSON schema object or string, got number`);
  });

  it.each<Wrong>([
    ['boolean', false, 'got boolean'],
    ['null', null, 'got null'],
    ['array', [], 'got array'],
    ['Map', new Map(), 'got Map object'],
  ])('json_schema = %s', (_n, value, got) => {
    expectRefused(schema(value), `${SP}.json_schema`, `expected a JSON schema object or string, ${got}`);
  });

  it('an object schema must be plain JSON (it is sent as its JSON text)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.items = cyclic;
    expectRefused(schema(cyclic), `${SP}.json_schema`, `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    expectRefused(schema({ maximum: 10n }), `${SP}.json_schema.maximum`, 'not a JSON value: bigint');
    expectRefused(schema({ enum: [Number.NaN] }), `${SP}.json_schema.enum[0]`, 'got NaN');
    expect(refusal(schema(deepObject(MAX_JSON_DEPTH)))).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['regex number', { kind: 'regex', pattern: 5 }, `${SP}.regex`, 'expected a string, got number'],
    ['ebnf null', { kind: 'grammar', grammar: null }, `${SP}.ebnf`, 'expected a string, got null'],
    ['structural_tag object', { kind: 'structural_tag', tag: {} }, `${SP}.structural_tag`, 'got object'],
    ['choice string', { kind: 'choice', choices: 'a|b' }, `${SP}.regex`, 'expected a list of choice strings, got string'],
    ['choice empty', { kind: 'choice', choices: [] }, `${SP}.regex`, 'the choice list must not be empty'],
    ['choice number item', { kind: 'choice', choices: ['a', 2] }, `${SP}.regex`, 'choice 1: expected a string, got number'],
    ['unknown kind', { kind: 'xml' }, SP, 'unknown structured-output constraint kind "xml"'],
  ])('%s', (_n, structured, field, text) => {
    expectRefused(withSp({ structured }), field, text);
  });
});

describe("TokenSpeed's admission table, named by slot", () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['temperature < 0 (before the greedy collapse)', { temperature: -1 }, 'temperature', 'temperature must be non-negative, got -1'],
    ['top_p 0', { topP: 0 }, 'top_p', 'top_p must be in (0, 1], got 0'],
    ['top_p > 1', { topP: 1.5 }, 'top_p', 'top_p must be in (0, 1]'],
    ['top_k 128', { topK: 128 }, 'top_k', 'top_k must be -1 or in [1, 128), got 128'],
    ['top_k -2', { topK: -2 }, 'top_k', 'got -2'],
    ['top_k just above 1<<30', { topK: TOP_K_ALL + 1 }, 'top_k', `got ${TOP_K_ALL + 1}`],
    ['min_p < 0', { minP: -0.1 }, 'min_p', 'min_p must be in [0, 1]'],
    ['min_p > 1', { minP: 1.1 }, 'min_p', 'min_p must be in [0, 1]'],
    ['frequency_penalty > 2', { frequencyPenalty: 2.1 }, 'frequency_penalty', 'must be in [-2, 2]'],
    ['presence_penalty < -2', { presencePenalty: -2.1 }, 'presence_penalty', 'must be in [-2, 2]'],
    ['repetition_penalty < 0', { repetitionPenalty: -0.1 }, 'repetition_penalty', 'must be in [0, 2]'],
    ['repetition_penalty > 2', { repetitionPenalty: 2.1 }, 'repetition_penalty', 'must be in [0, 2]'],
    ['min_new_tokens < 0', { minTokens: -1 }, 'min_new_tokens', 'min_new_tokens must be non-negative, got -1'],
    ['max_new_tokens < 0', { maxTokens: -1 }, 'max_new_tokens', 'max_new_tokens must be non-negative, got -1'],
    ['max_new_tokens < min_new_tokens', { maxTokens: 2, minTokens: 3 }, 'max_new_tokens', 'max_new_tokens (2) must be >= min_new_tokens (3)'],
    ['seed -1', { seed: -1 }, 'seed', 'seed must be an integer in [0, 2^53), got -1'],
  ])('%s', (_n, over, key, text) => {
    expectRefused(withSp(over), `sampling_params.${key}`, text);
  });

  it.each<[string, Partial<EngineRequest>, Record<string, unknown>, string, string]>([
    ['empty prompt', { promptTokenIds: [] }, {}, 'input_ids', 'must not be empty'],
    ['empty rid', { requestId: '' }, {}, 'rid', 'must not be an empty string'],
    ['negative logprobs count', {}, { logprobs: -1 }, 'return_logprob', 'logprobs must be non-negative, got -1'],
  ])('%s', (_n, over, sampling, field, text) => {
    expectRefused(base(over, sampling), field, text);
  });
});

describe('valid requests: same bytes as before the guard, decoded and admitted by the fake engine', () => {
  it.each(TOKENSPEED_VALID_CASES.map((c) => [c.name, c.request] as const))('%s', (name, req) => {
    const frames = tokenspeedDialect.encodeAdd(req);
    expect(frames[1].toString('hex')).toBe(TOKENSPEED_GOLDEN_HEX[name]);
    const verdict = engineVerdict(frames);
    expect(verdict).not.toHaveProperty('refused');
    if ('request' in verdict) expect(crashHazard(verdict.request)).toBeNull();
  });
});

describe('what the guard lets through, the engine admits (randomized, seeded)', () => {
  const SAMPLING_POOL: Record<string, unknown[]> = {
    temperature: [0, 5e-7, 1e-6, 0.7, 2, 7, -0.01, Number.NaN, '1', null],
    topP: [1e-12, 1, 0, 1.5, Infinity],
    topK: [-1, 0, 1, 127, 128, TOP_K_ALL, TOP_K_ALL + 1, -2, 1.5, '5'],
    minP: [0, 1, -0.5, 1.01],
    presencePenalty: [-2, 2, 2.5, 'x'],
    frequencyPenalty: [-2, 2, -2.5],
    repetitionPenalty: [0, 2, -0.1, 2.1, Infinity],
    seed: [null, 0, Number.MAX_SAFE_INTEGER, -1, 2 ** 53, 2 ** 63, 1.5],
    maxTokens: [0, 1, 16, 10 ** 9, -1, 1.5, null],
    minTokens: [0, 1, 16, 17, -1],
    stopTokenIds: [[], [7, 7], [2 ** 31 - 1], [-1], ['2'], null],
    ignoreEos: [true, false, 0],
    skipSpecialTokens: [true, false, null],
    logprobs: [null, 0, 1, 5, -1, 0.5],
    promptLogprobs: [null, null, null, 0],
    logitBias: [null, new Map(), new Map([[3, -1.5]]), new Map([[3, Infinity]]), { 3: 1 }],
    allowedTokenIds: [null, null, [1]],
    badWordsTokenIds: [null, null, [[1]]],
    structured: [
      null,
      { kind: 'json_object' },
      { kind: 'json_schema', schema: { type: 'object' } },
      { kind: 'json_schema', schema: '{"type":"string"}' },
      { kind: 'json_schema', schema: 5 },
      { kind: 'choice', choices: ['a', 'b'] },
      { kind: 'choice', choices: [] },
      { kind: 'grammar', grammar: 'root ::= "x"' },
      { kind: 'structural_tag', tag: '{}' },
      { kind: 'regex', pattern: null },
    ],
  };
  const REQUEST_POOL: Record<string, unknown[]> = {
    requestId: ['x', '', 5, null],
    promptTokenIds: [[0], [2 ** 31 - 1], [], [2 ** 31], [1, -1], null],
    stream: [undefined, true, false, 1],
  };

  it('never sends what the engine drops, aborts at admission, or crashes on; every refusal is a WireFieldError', () => {
    const rand = mulberry32(0x7357);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const samplingKeys = Object.keys(SAMPLING_POOL);
    const requestKeys = Object.keys(REQUEST_POOL);
    let sent = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const start = pick(TOKENSPEED_VALID_CASES).request;
      const sampling: Record<string, unknown> = { ...start.sampling };
      const req: Record<string, unknown> = { ...start, sampling };
      const mutations = 1 + Math.floor(rand() * 3);
      for (let m = 0; m < mutations; m++) {
        if (rand() < 0.8) {
          const k = pick(samplingKeys);
          sampling[k] = pick(SAMPLING_POOL[k]);
        } else {
          const k = pick(requestKeys);
          req[k] = pick(REQUEST_POOL[k]);
        }
      }
      let frames: Buffer[];
      try {
        frames = tokenspeedDialect.encodeAdd(req as unknown as EngineRequest);
      } catch (err) {
        expect(err, String(err)).toBeInstanceOf(WireFieldError);
        refused++;
        continue;
      }
      const verdict = engineVerdict(frames);
      if ('refused' in verdict) throw new Error(`sent but ${verdict.refused}`);
      const hazard = crashHazard(verdict.request);
      if (hazard !== null) throw new Error(`sent a value the engine crashes on: ${hazard}`);
      sent++;
    }
    expect(sent).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});
