/** Gateway-side ADD encoding: sampling map rules (spec wire-vllm §3.3, §3.4, Errata 2). */
import { describe, expect, it } from 'vitest';
import { encodeAdd } from '../../src/engine/dialects/vllm/index.js';
import { decodeEngineInput, type ParsedAddRequest } from '../../src/mock-engine/wire/vllm/index.js';
import { readTyped, toPlain } from '../../src/mock-engine/wire/typed-reader.js';
import { WireEncodeError, type SamplingSpec, type StructuredConstraint } from '../../src/engine/types.js';
import { r1Request } from './vllm-fixtures.js';

/** Encode with the gateway, then decode with the strict fake-engine decoder. */
function roundTrip(sampling: Partial<SamplingSpec>): ParsedAddRequest {
  const input = decodeEngineInput(encodeAdd(r1Request({}, sampling)));
  if (input.kind !== 'add') throw new Error(`engine refused the request: ${JSON.stringify(input)}`);
  return input.request;
}

/** The sampling map exactly as sent, keys in wire order. */
function wireSampling(sampling: Partial<SamplingSpec>): Record<string, unknown> {
  const payload = readTyped(encodeAdd(r1Request({}, sampling))[1]);
  if (payload.t !== 'array') throw new Error('not an array');
  return toPlain(payload.v[3]) as Record<string, unknown>;
}

describe('sampling map', () => {
  it('sends only non-default keys, in declaration order, plus max_tokens', () => {
    const m = wireSampling({
      temperature: 1,
      topP: 0.9,
      topK: 40,
      seed: 7,
      minTokens: 2,
      presencePenalty: 0.5,
      skipSpecialTokens: false,
      logprobs: 3,
    });
    expect(Object.keys(m)).toEqual([
      'presence_penalty',
      'top_p',
      'top_k',
      'seed',
      'max_tokens',
      'min_tokens',
      'logprobs',
      'skip_special_tokens',
    ]);
    expect(m).toMatchObject({ top_p: 0.9, top_k: 40, max_tokens: 4, min_tokens: 2, skip_special_tokens: false });
  });

  it('writes integral floats as float64 and ints as ints', () => {
    const payload = encodeAdd(r1Request({}, { temperature: 2, repetitionPenalty: 2 }))[1].toString('hex');
    const key = (s: string): string => Buffer.from(s).toString('hex');
    expect(payload).toContain(key('repetition_penalty') + 'cb4000000000000000');
    expect(payload).toContain(key('temperature') + 'cb4000000000000000');
    expect(payload).toContain(key('max_tokens') + '04');
  });

  it('treats top_k -1 and seed -1 as "unset"', () => {
    expect(Object.keys(wireSampling({ topK: -1, seed: -1 }))).toEqual(['temperature', 'max_tokens']);
  });

  it('sends EOS as _eos_token_id and in _all_stop_token_ids', () => {
    const r = roundTrip({ eosTokenId: 2, stopTokenIds: [7, 2], allStopTokenIds: [2, 9] });
    expect(r.sampling.eosTokenId).toBe(2);
    expect(r.sampling.stopTokenIds).toEqual([7, 2]);
    expect(r.sampling.allStopTokenIds).toEqual([2, 9, 7]);
  });

  it('ignore_eos sends no EOS id anywhere (Errata 2)', () => {
    const m = wireSampling({ ignoreEos: true, eosTokenId: 2, stopTokenIds: [7, 2], allStopTokenIds: [2, 7] });
    expect(m['_eos_token_id']).toBeUndefined();
    expect(m['stop_token_ids']).toEqual([7]);
    expect(m['_all_stop_token_ids']).toEqual([7]);
    expect(m['ignore_eos']).toBe(true);
  });

  it('logit_bias has int keys and clamped float values', () => {
    const r = roundTrip({
      logitBias: new Map([
        [5, 1],
        [6, -250],
      ]),
    });
    expect(r.sampling.logitBias).toEqual(
      new Map([
        [5, 1],
        [6, -100],
      ]),
    );
    const payload = readTyped(encodeAdd(r1Request({}, { logitBias: new Map([[5, 1]]) }))[1]);
    if (payload.t !== 'array' || payload.v[3].t !== 'map') throw new Error('shape');
    const entry = payload.v[3].v.find(([k]) => k.t === 'str' && k.v === 'logit_bias');
    expect(entry?.[1]).toEqual({ t: 'map', v: [[{ t: 'int', v: 5 }, { t: 'float', v: 1, bits: 64 }]] });
  });

  it('allowed_token_ids and bad-word ids', () => {
    const r = roundTrip({ allowedTokenIds: [1, 2], badWordsTokenIds: [[3, 4], [5]] });
    expect(r.sampling.allowedTokenIds).toEqual([1, 2]);
    expect(r.sampling.badWordsTokenIds).toEqual([[3, 4], [5]]);
  });
});

describe('structured_outputs', () => {
  const cases: Array<[StructuredConstraint, Record<string, unknown>]> = [
    [{ kind: 'json_schema', schema: '{"type":"object"}' }, { json: { type: 'object' }, _backend: 'guidance' }],
    [{ kind: 'json_schema', schema: { type: 'string' } }, { json: { type: 'string' }, _backend: 'guidance' }],
    [{ kind: 'json_schema', schema: 'not json' }, { json: 'not json', _backend: 'guidance' }],
    [{ kind: 'json_schema', schema: '[1]' }, { json: '[1]', _backend: 'guidance' }],
    [{ kind: 'json_object' }, { json_object: true, _backend: 'guidance' }],
    [{ kind: 'regex', pattern: 'a+' }, { regex: 'a+', _backend: 'guidance' }],
    [{ kind: 'grammar', grammar: 'root ::= "x"' }, { grammar: 'root ::= "x"', _backend: 'guidance' }],
    [{ kind: 'choice', choices: ['a', 'b'] }, { choice: ['a', 'b'], _backend: 'guidance' }],
    [{ kind: 'structural_tag', tag: '{}' }, { structural_tag: '{}', _backend: 'xgrammar' }],
  ];
  it.each(cases)('%j', (structured, expected) => {
    expect(wireSampling({ structured })['structured_outputs']).toEqual(expected);
    expect(roundTrip({ structured }).sampling.structuredOutputs).not.toBeNull();
  });
});

describe('envelope', () => {
  it('carries cache_salt, data_parallel_rank and priority; client_index stays 0', () => {
    const input = decodeEngineInput(encodeAdd(r1Request({ cacheSalt: 'tenant', dataParallelRank: 1, priority: -3 })));
    expect(input).toMatchObject({ kind: 'add', request: { cacheSalt: 'tenant', dataParallelRank: 1, priority: -3, clientIndex: 0 } });
  });

  it('each frame owns its bytes (the writer is reused)', () => {
    const a = encodeAdd(r1Request({ requestId: 'first' }));
    const before = a[1].toString('hex');
    encodeAdd(r1Request({ requestId: 'second-request-with-a-longer-id' }, { topK: 5 }));
    expect(a[1].toString('hex')).toBe(before);
  });

  it('encodes long and non-ASCII prompts/ids', () => {
    const prompt = Array.from({ length: 70000 }, (_, i) => i);
    const input = decodeEngineInput(encodeAdd(r1Request({ requestId: 'ré-😀-'.repeat(20), promptTokenIds: prompt })));
    expect(input).toMatchObject({ kind: 'add', request: { requestId: 'ré-😀-'.repeat(20) } });
    if (input.kind === 'add') expect(input.request.promptTokenIds).toEqual(prompt);
  });
});

describe('refuses what the engine would reject', () => {
  it.each([
    ['top_p = 0', { topP: 0 }, /top_p/],
    ['min_tokens > max_tokens', { minTokens: 5, maxTokens: 4 }, /min_tokens/],
    ['max_tokens = 0', { maxTokens: 0 }, /max_tokens/],
    ['temperature > 2', { temperature: 2.5 }, /temperature/],
    ['top_k < -1', { topK: -2 }, /top_k/],
    ['fractional top_k', { topK: 1.5 }, /top_k/],
    ['presence_penalty > 2', { presencePenalty: 3 }, /presence_penalty/],
    ['repetition_penalty 0', { repetitionPenalty: 0 }, /repetition_penalty/],
    ['min_p > 1', { minP: 1.5 }, /min_p/],
    ['whole-vocabulary logprobs', { logprobs: -1 }, /logprobs/],
    ['fractional max_tokens', { maxTokens: 4.5 }, /safe integer/],
    ['NaN logit bias', { logitBias: new Map([[1, Number.NaN]]) }, /NaN/],
    ['negative stop id', { stopTokenIds: [-1] }, /negative/],
  ] as const)('%s', (_name, sampling, message) => {
    expect(() => encodeAdd(r1Request({}, sampling as Partial<SamplingSpec>))).toThrow(WireEncodeError);
    expect(() => encodeAdd(r1Request({}, sampling as Partial<SamplingSpec>))).toThrow(message);
  });

  it('a float token id', () => {
    expect(() => encodeAdd(r1Request({ promptTokenIds: [1, 2.5] }))).toThrow(WireEncodeError);
  });

  it('an empty prompt', () => {
    expect(() => encodeAdd(r1Request({ promptTokenIds: [] }))).toThrow(WireEncodeError);
  });
});
