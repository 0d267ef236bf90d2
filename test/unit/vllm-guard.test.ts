/**
 * The vLLM wire guard (src/engine/dialects/vllm/guard.ts): every field that reaches the wire is
 * checked at runtime against vLLM's decoder types and validation rules, a refusal names the wire
 * field, valid requests keep their exact bytes, and whatever the guard lets through is accepted by
 * the fake engine's strict decoder (spec wire-vllm §3.2–§3.4, §3.9, §4.2).
 */
import { describe, expect, it } from 'vitest';
import { encodeAdd, MAX_LOGPROBS, WireFieldError } from '../../src/engine/dialects/vllm/index.js';
import { decodeEngineInput } from '../../src/mock-engine/wire/vllm/index.js';
import { MAX_JSON_DEPTH } from '../../src/engine/dialects/guard-checks.js';
import { WireEncodeError, type EngineRequest, type SamplingSpec } from '../../src/engine/types.js';
import { VLLM_VALID_CASES } from '../support/guard-cases.js';
import { VLLM_GOLDEN_HEX } from '../support/guard-golden.js';
import { r1Request } from './vllm-fixtures.js';
import {
  BOOL_WRONG,
  FLOAT_WRONG,
  INT_WRONG,
  STRING_WRONG,
  TOKEN_ID_WRONG,
  TOKEN_LIST_WRONG,
  deepArrayText,
  deepObject,
  deepObjectText,
  mulberry32,
  type Wrong,
} from '../support/guard-test-kit.js';

/** The guard's refusal of `req`, or null when it let the request through. */
function refusal(req: unknown): WireFieldError | null {
  try {
    encodeAdd(req as EngineRequest);
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

const withReq = (key: keyof EngineRequest, value: unknown): unknown => ({ ...r1Request(), [key]: value });
const withSp = (over: Record<string, unknown>, req: Partial<EngineRequest> = {}): unknown =>
  r1Request(req, over as Partial<SamplingSpec>);

describe('type checks: every field, every wrong JSON type', () => {
  const floats: Array<[keyof SamplingSpec, string]> = [
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['minP', 'min_p'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
    ['repetitionPenalty', 'repetition_penalty'],
  ];
  for (const [key, wire] of floats) {
    it.each(FLOAT_WRONG)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a finite number, got ${got}`);
    });
  }

  const ints: Array<[keyof SamplingSpec, string, boolean]> = [
    ['topK', 'top_k', false],
    ['maxTokens', 'max_tokens', false],
    ['minTokens', 'min_tokens', false],
    ['seed', 'seed', true],
    ['logprobs', 'logprobs', true],
    ['promptLogprobs', 'prompt_logprobs', true],
  ];
  for (const [key, wire, nullable] of ints) {
    const wrong = nullable ? INT_WRONG.filter(([n]) => n !== 'null') : INT_WRONG;
    it.each(wrong)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a whole number (safe integer), got ${got}`);
    });
  }

  it.each(INT_WRONG)('priority = %s', (_n, value, got) => {
    expectRefused(withReq('priority', value), 'priority', `expected a whole number (safe integer), got ${got}`);
  });
  it.each(INT_WRONG.filter(([n]) => n !== 'null'))('data_parallel_rank = %s', (_n, value, got) => {
    expectRefused(withReq('dataParallelRank', value), 'data_parallel_rank', `got ${got}`);
  });
  it.each(FLOAT_WRONG)('arrival_time = %s', (_n, value, got) => {
    expectRefused(withReq('arrivalTime', value), 'arrival_time', `expected a finite number, got ${got}`);
  });

  for (const [key, wire] of [['ignoreEos', 'ignore_eos'], ['skipSpecialTokens', 'skip_special_tokens']] as const) {
    it.each(BOOL_WRONG)(`sampling_params.${wire} = %s`, (_n, value, got) => {
      expectRefused(withSp({ [key]: value }), `sampling_params.${wire}`, `expected a boolean, got ${got}`);
    });
  }

  it.each(STRING_WRONG)('request_id = %s', (_n, value, got) => {
    expectRefused(withReq('requestId', value), 'request_id', got);
  });
  it.each(STRING_WRONG.filter(([n]) => n !== 'null'))('cache_salt = %s', (_n, value, got) => {
    expectRefused(withReq('cacheSalt', value), 'cache_salt', got);
  });

  const lists: Array<[string, (v: unknown) => unknown, string, boolean]> = [
    ['prompt_token_ids', (v) => withReq('promptTokenIds', v), 'prompt_token_ids', false],
    ['stop_token_ids', (v) => withSp({ stopTokenIds: v }), 'sampling_params.stop_token_ids', false],
    ['_all_stop_token_ids', (v) => withSp({ allStopTokenIds: v }), 'sampling_params._all_stop_token_ids', false],
    ['allowed_token_ids', (v) => withSp({ allowedTokenIds: v }), 'sampling_params.allowed_token_ids', true],
    ['_bad_words_token_ids[0]', (v) => withSp({ badWordsTokenIds: [v] }), 'sampling_params._bad_words_token_ids[0]', false],
  ];
  for (const [name, build, field, nullable] of lists) {
    const containers = nullable ? TOKEN_LIST_WRONG.filter(([n]) => n !== 'null') : TOKEN_LIST_WRONG;
    it.each(containers)(`${name} = %s`, (_n, value, got) => {
      expectRefused(build(value), field, `expected a list of token ids, got ${got}`);
    });
    it.each(TOKEN_ID_WRONG)(`${name} element = %s`, (_n, value, text) => {
      expectRefused(build([1, value]), `${field}[1]`, text);
    });
  }

  it.each(TOKEN_ID_WRONG.filter(([n]) => n !== 'null'))('_eos_token_id = %s', (_n, value, text) => {
    expectRefused(withSp({ eosTokenId: value }), 'sampling_params._eos_token_id', text);
  });

  it.each<Wrong>([
    ['number', 5, 'got number'],
    ['string', 'x', 'got string'],
    ['object', {}, 'got object'],
  ])('_bad_words_token_ids = %s', (_n, value, got) => {
    expectRefused(withSp({ badWordsTokenIds: value }), 'sampling_params._bad_words_token_ids', `expected a list of token id lists, ${got}`);
  });

  it('_bad_words_token_ids = a flat list of ids (list[list[int]] expected)', () => {
    expectRefused(withSp({ badWordsTokenIds: [1, 2] }), 'sampling_params._bad_words_token_ids[0]', 'expected a list of token ids, got number');
  });

  it('logit_bias: a Map of token id → number', () => {
    const field = 'sampling_params.logit_bias';
    expectRefused(withSp({ logitBias: { 5: 1 } }), field, 'expected a Map of token id to bias, got object');
    expectRefused(withSp({ logitBias: [[5, 1]] }), field, 'got array');
    expectRefused(withSp({ logitBias: 5 }), field, 'got number');
    expectRefused(withSp({ logitBias: new Map([['5', 1]]) }), `${field} key`, 'got string');
    expectRefused(withSp({ logitBias: new Map([[-1, 1]]) }), `${field} key`, 'must not be negative');
    expectRefused(withSp({ logitBias: new Map([[1.5, 1]]) }), `${field} key`, 'got 1.5');
    expectRefused(withSp({ logitBias: new Map([[2 ** 31, 1]]) }), `${field} key`, 'below 2^31');
    expectRefused(withSp({ logitBias: new Map([[5, Number.NaN]]) }), `${field}[5]`, 'got NaN');
    expectRefused(withSp({ logitBias: new Map([[5, '1']]) }), `${field}[5]`, 'got string');
    expectRefused(withSp({ logitBias: new Map([[5, null]]) }), `${field}[5]`, 'got null');
  });

  it('the request and its sampling must be objects', () => {
    expectRefused(null, 'request', 'expected an object, got null');
    expectRefused(5, 'request', 'got number');
    expectRefused(withReq('sampling', null), 'sampling_params', 'expected an object, got null');
    expectRefused(withReq('sampling', 'x'), 'sampling_params', 'got string');
  });
});

describe('structured_outputs: the msgspec union of each key', () => {
  const SO = 'sampling_params.structured_outputs';
  const schema = (s: unknown) => withSp({ structured: { kind: 'json_schema', schema: s } });

  it('names the bad schema in the words a user can act on', () => {
    const err = refusal(schema(5));
    expect(err?.message).toBe(`${SO}.json: expected a JSON schema object or string, got number`);
  });

  it.each<Wrong>([
    ['boolean', true, 'got boolean'],
    ['null', null, 'got null'],
    ['undefined', undefined, 'got undefined'],
    ['array', [{ type: 'object' }], 'got array'],
    ['Map', new Map([['type', 'object']]), 'got Map object'],
    ['Date', new Date(0), 'got Date object'],
    ['NaN', Number.NaN, 'got NaN'],
  ])('json = %s', (_n, value, got) => {
    expectRefused(schema(value), `${SO}.json`, `expected a JSON schema object or string, ${got}`);
  });

  it('json objects must be plain JSON all the way down, with the path to the bad value', () => {
    expectRefused(schema({ properties: { a: { maximum: Number.NaN } } }), `${SO}.json.properties.a.maximum`, 'got NaN');
    expectRefused(schema({ enum: [1, Infinity] }), `${SO}.json.enum[1]`, 'got Infinity');
    expectRefused(schema({ default: () => 1 }), `${SO}.json.default`, 'not a JSON value: function');
    expectRefused(schema({ 'a b': 1n }), `${SO}.json["a b"]`, 'not a JSON value: bigint');
    expectRefused(schema({ items: [new Uint8Array(2)] }), `${SO}.json.items[0]`, 'not a JSON value: Uint8Array object');
    expectRefused(schema({ s: Symbol('x') }), `${SO}.json.s`, 'not a JSON value: symbol');
  });

  it(`nesting deeper than ${MAX_JSON_DEPTH} is refused (msgspec recursion), as object or as object text`, () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expectRefused(schema(cyclic), `${SO}.json`, `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    expect(refusal(schema(deepObject(MAX_JSON_DEPTH)))).toBeNull();
    expect(refusal(schema(deepObject(MAX_JSON_DEPTH + 1)))?.message).toMatch(`deeper than ${MAX_JSON_DEPTH}`);
    expect(refusal(schema(deepObjectText(MAX_JSON_DEPTH)))).toBeNull();
    expectRefused(schema(deepObjectText(MAX_JSON_DEPTH + 1)), `${SO}.json`, `deeper than ${MAX_JSON_DEPTH}`);
    // Texts that do not parse to an object travel as str, which the engine decodes without recursion.
    expect(refusal(schema(deepArrayText(MAX_JSON_DEPTH + 10)))).toBeNull();
    expect(refusal(schema(`${deepObjectText(MAX_JSON_DEPTH + 10)}x`))).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['regex number', { kind: 'regex', pattern: 5 }, `${SO}.regex`, 'expected a string, got number'],
    ['regex null', { kind: 'regex', pattern: null }, `${SO}.regex`, 'got null'],
    ['grammar object', { kind: 'grammar', grammar: {} }, `${SO}.grammar`, 'got object'],
    ['structural_tag object', { kind: 'structural_tag', tag: { type: 'x' } }, `${SO}.structural_tag`, 'got object'],
    ['choice string', { kind: 'choice', choices: 'yes' }, `${SO}.choice`, 'expected a list of strings, got string'],
    ['choice empty', { kind: 'choice', choices: [] }, `${SO}.choice`, 'must not be empty'],
    ['choice number item', { kind: 'choice', choices: ['a', 1] }, `${SO}.choice[1]`, 'expected a string, got number'],
    ['unknown kind', { kind: 'xml' }, SO, 'unknown constraint kind "xml"'],
    ['no kind', { pattern: 'a' }, SO, 'unknown constraint kind undefined'],
    ['bigint kind', { kind: 1n }, SO, 'unknown constraint kind bigint'],
  ])('%s', (_n, structured, field, text) => {
    expectRefused(withSp({ structured }), field, text);
  });

  it('a constraint that is not an object', () => {
    expectRefused(withSp({ structured: 'json' }), SO, 'expected a constraint object, got string');
  });
});

describe("vLLM's SamplingParams rules, named by wire field", () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['temperature < 0', { temperature: -0.1 }, 'temperature', 'temperature must be non-negative, got -0.1.'],
    ['temperature > 2', { temperature: 2.01 }, 'temperature', 'temperature must be in [0, 2], got 2.01.'],
    ['top_p 0', { topP: 0 }, 'top_p', 'top_p must be in (0, 1], got 0.'],
    ['top_p > 1', { topP: 1.01 }, 'top_p', 'top_p must be in (0, 1]'],
    ['top_k -2', { topK: -2 }, 'top_k', 'top_k must be 0 (disable), or at least 1, got -2.'],
    ['min_p < 0', { minP: -0.1 }, 'min_p', 'min_p must be in [0, 1]'],
    ['min_p > 1', { minP: 1.1 }, 'min_p', 'min_p must be in [0, 1]'],
    ['presence_penalty < -2', { presencePenalty: -2.1 }, 'presence_penalty', 'must be in [-2, 2]'],
    ['presence_penalty > 2', { presencePenalty: 2.1 }, 'presence_penalty', 'must be in [-2, 2]'],
    ['frequency_penalty < -2', { frequencyPenalty: -2.1 }, 'frequency_penalty', 'must be in [-2, 2]'],
    ['frequency_penalty > 2', { frequencyPenalty: 2.1 }, 'frequency_penalty', 'must be in [-2, 2]'],
    ['repetition_penalty 0', { repetitionPenalty: 0 }, 'repetition_penalty', 'must be greater than zero, got 0.'],
    ['repetition_penalty < 0', { repetitionPenalty: -1 }, 'repetition_penalty', 'must be greater than zero'],
    ['max_tokens 0', { maxTokens: 0 }, 'max_tokens', 'max_tokens must be at least 1, got 0.'],
    ['max_tokens < 0', { maxTokens: -5 }, 'max_tokens', 'at least 1'],
    ['min_tokens < 0', { minTokens: -1 }, 'min_tokens', 'min_tokens must be greater than or equal to 0, got -1.'],
    ['min_tokens > max_tokens', { minTokens: 5, maxTokens: 4 }, 'min_tokens', 'less than or equal to max_tokens=4, got 5.'],
    ['logprobs -2', { logprobs: -2 }, 'logprobs', 'logprobs must be non-negative or -1, got -2.'],
    ['logprobs -1', { logprobs: -1 }, 'logprobs', 'logprobs = -1 (whole vocabulary) is not supported'],
    ['logprobs > max', { logprobs: MAX_LOGPROBS + 1 }, 'logprobs', `Requested sample logprobs of 21, which is greater than max allowed: ${MAX_LOGPROBS}`],
    ['prompt_logprobs -2', { promptLogprobs: -2 }, 'prompt_logprobs', 'must be non-negative or -1'],
    ['prompt_logprobs -1', { promptLogprobs: -1 }, 'prompt_logprobs', 'prompt_logprobs = -1 (whole vocabulary) is not supported'],
    ['prompt_logprobs > max', { promptLogprobs: 1000 }, 'prompt_logprobs', 'Requested prompt logprobs of 1000'],
    ['empty allowed_token_ids', { allowedTokenIds: [] }, 'allowed_token_ids', 'must not be empty'],
    ['empty bad word', { badWordsTokenIds: [[1], []] }, '_bad_words_token_ids[1]', 'must not be empty'],
  ])('%s', (_n, over, key, text) => {
    expectRefused(withSp(over), `sampling_params.${key}`, text);
  });

  it.each<[string, Partial<EngineRequest>, string, string]>([
    ['empty prompt', { promptTokenIds: [] }, 'prompt_token_ids', 'must not be empty'],
    ['empty request_id', { requestId: '' }, 'request_id', 'must not be an empty string'],
    ['empty cache_salt', { cacheSalt: '' }, 'cache_salt', 'must not be an empty string'],
    ['negative arrival_time', { arrivalTime: -1 }, 'arrival_time', 'must not be negative, got -1'],
    ['negative data_parallel_rank', { dataParallelRank: -1 }, 'data_parallel_rank', 'must not be negative, got -1'],
  ])('%s', (_n, over, field, text) => {
    expectRefused(r1Request(over), field, text);
  });
});

describe('valid requests: same bytes as before the guard, accepted by the strict engine decoder', () => {
  it.each(VLLM_VALID_CASES.map((c) => [c.name, c.request] as const))('%s', (name, req) => {
    const frames = encodeAdd(req);
    expect(frames[1].toString('hex')).toBe(VLLM_GOLDEN_HEX[name]);
    const input = decodeEngineInput(frames);
    expect(input.kind, JSON.stringify(input)).toBe('add');
    if (input.kind === 'add') expect(input.request.promptTokenIds).toEqual(req.promptTokenIds);
  });

  it('a refusal leaves nothing behind: the next valid request encodes to its exact bytes', () => {
    expect(refusal(withSp({ topP: 0 }))).not.toBeNull();
    expect(refusal(withSp({ structured: { kind: 'json_schema', schema: deepObject(500) } }))).not.toBeNull();
    const first = VLLM_VALID_CASES[0];
    expect(encodeAdd(first.request)[1].toString('hex')).toBe(VLLM_GOLDEN_HEX[first.name]);
  });
});

describe('what the guard lets through, the engine accepts (randomized, seeded)', () => {
  // Field → candidate values: edges that are valid and values that are not, mixed.
  const SAMPLING_POOL: Record<string, unknown[]> = {
    temperature: [0, 1e-6, 0.005, 2, 2.0001, -0.01, Number.NaN, '1', null],
    topP: [1e-12, 1, 0, 1.5, Infinity, true],
    topK: [-1, 0, 1, 2 ** 40, -2, 1.5, '5', null],
    minP: [0, 1, -0.5, 1.01, Number.NaN],
    presencePenalty: [-2, 2, 2.5, 'x'],
    frequencyPenalty: [-2, 2, -2.5, []],
    repetitionPenalty: [1e-9, 5, 0, -1, Infinity],
    seed: [null, -1, 0, Number.MAX_SAFE_INTEGER, -(2 ** 53 - 1), 2 ** 53, 1.5, '7'],
    maxTokens: [1, 4, 10 ** 9, 0, -1, 1.5, null],
    minTokens: [0, 1, 4, 5, -1, 0.5],
    stopTokenIds: [[], [0, 2 ** 31 - 1], [-1], [1.5], ['2'], null],
    eosTokenId: [null, 0, 2, -1, 2 ** 31, '2'],
    allStopTokenIds: [[], [2, 2], [Number.NaN], {}],
    ignoreEos: [true, false, 1, null],
    logprobs: [null, 0, 20, 21, -1, -2, 1.5],
    promptLogprobs: [null, 0, 20, 21, -1],
    logitBias: [null, new Map(), new Map([[1, Infinity]]), new Map([[1, Number.NaN]]), { 1: 1 }, new Map([['1', 1]])],
    allowedTokenIds: [null, [1], [], [-3]],
    badWordsTokenIds: [null, [[1, 2]], [[]], [1]],
    structured: [
      null,
      { kind: 'json_object' },
      { kind: 'json_schema', schema: {} },
      { kind: 'json_schema', schema: '[1]' },
      { kind: 'json_schema', schema: 5 },
      { kind: 'json_schema', schema: [] },
      { kind: 'json_schema', schema: deepObject(MAX_JSON_DEPTH + 1) },
      { kind: 'choice', choices: ['a'] },
      { kind: 'choice', choices: [] },
      { kind: 'regex', pattern: 7 },
      { kind: 'bogus' },
    ],
    skipSpecialTokens: [true, false, 'false'],
  };
  const REQUEST_POOL: Record<string, unknown[]> = {
    requestId: ['x', '', 5, null],
    promptTokenIds: [[0], [2 ** 31 - 1], [], [2 ** 31], [1, -1], 'abc'],
    arrivalTime: [0, 1.5, -1, Number.NaN, '1'],
    cacheSalt: [null, 's', '', 5],
    dataParallelRank: [null, 0, 3, -1, 0.5],
    priority: [0, -(2 ** 40), 2 ** 40, 1.5, null],
  };

  it('never sends what the strict decoder refuses; every refusal is a WireFieldError', () => {
    const rand = mulberry32(0x5eed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const samplingKeys = Object.keys(SAMPLING_POOL);
    const requestKeys = Object.keys(REQUEST_POOL);
    let sent = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const base = pick(VLLM_VALID_CASES).request;
      const sampling: Record<string, unknown> = { ...base.sampling };
      const req: Record<string, unknown> = { ...base, sampling };
      const mutations = 1 + Math.floor(rand() * 3);
      for (let m = 0; m < mutations; m++) {
        if (rand() < 0.75) {
          const k = pick(samplingKeys);
          sampling[k] = pick(SAMPLING_POOL[k]);
        } else {
          const k = pick(requestKeys);
          req[k] = pick(REQUEST_POOL[k]);
        }
      }
      let frames: Buffer[];
      try {
        frames = encodeAdd(req as unknown as EngineRequest);
      } catch (err) {
        expect(err, String(err)).toBeInstanceOf(WireFieldError);
        refused++;
        continue;
      }
      const input = decodeEngineInput(frames);
      if (input.kind !== 'add') throw new Error(`sent but the engine refused it: ${JSON.stringify(input)}`);
      sent++;
    }
    // Both outcomes must occur often, or the property says nothing.
    expect(sent).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});
