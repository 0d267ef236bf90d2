/**
 * The gateway's SamplingSpec → 29-slot SamplingParams mapping and its normalizations
 * (wire-tokenspeed §4.3–4.7, request-pipeline §5.5), checked on the wire bytes where it matters.
 */
import { describe, expect, it } from 'vitest';
import { readTyped, type TypedValue } from '../../src/mock-engine/wire/typed-reader.js';
import { WireEncodeError, type EngineRequest, type SamplingSpec } from '../../src/engine/types.js';
import {
  defaultSamplingParams,
  normalizeTokenSpeedSampling,
  SAMPLING_LAYOUT,
  tokenspeedDialect,
  toTokenSpeedSampling,
  TOP_K_ALL,
} from '../../src/engine/dialects/tokenspeed/index.js';
import { decodeTokenSpeedInput, type TsAddRequest } from '../../src/mock-engine/wire/tokenspeed/index.js';

function spec(over: Partial<SamplingSpec> = {}): SamplingSpec {
  return {
    temperature: 1, topP: 1, topK: -1, minP: 0, presencePenalty: 0, frequencyPenalty: 0, repetitionPenalty: 1,
    seed: null, maxTokens: 16, minTokens: 0, stopTokenIds: [], eosTokenId: 2, allStopTokenIds: [2],
    ignoreEos: false, logprobs: null, promptLogprobs: null, logitBias: null, allowedTokenIds: null,
    badWordsTokenIds: null, structured: null, skipSpecialTokens: true,
    ...over,
  };
}

function req(sampling: SamplingSpec, over: Partial<EngineRequest> = {}): EngineRequest {
  return {
    requestId: 'r1', promptTokenIds: [1, 2, 3], sampling, arrivalTime: 0, cacheSalt: null,
    dataParallelRank: null, priority: 0, ...over,
  };
}

/** The ADD payload as typed wire values: [tag, rid, …, sampling[29], …, stream]. */
function wire(r: EngineRequest): TypedValue[] {
  const top = readTyped(tokenspeedDialect.encodeAdd(r)[1]);
  if (top.t !== 'array') throw new Error('not an array');
  return top.v;
}

function slot(r: EngineRequest, key: string): TypedValue {
  const sp = wire(r)[5];
  if (sp.t !== 'array') throw new Error('sampling not an array');
  return sp.v[SAMPLING_LAYOUT.findIndex((s) => s.key === key)];
}

function engineView(r: EngineRequest): TsAddRequest {
  const msg = decodeTokenSpeedInput(tokenspeedDialect.encodeAdd(r));
  if (msg.kind !== 'add') throw new Error(`dropped: ${JSON.stringify(msg)}`);
  return msg.request;
}

describe('normalizations (is_normalized = true, so the gateway applies them)', () => {
  it('temperature < 1e-6 collapses to greedy: temperature 1.0, top_k 1, whatever top_k was', () => {
    expect(toTokenSpeedSampling(spec({ temperature: 0, topK: 20 }))).toMatchObject({ temperature: 1, topK: 1 });
    expect(toTokenSpeedSampling(spec({ temperature: 5e-7 }))).toMatchObject({ temperature: 1, topK: 1 });
    expect(toTokenSpeedSampling(spec({ temperature: 1e-6, topK: 20 }))).toMatchObject({ temperature: 1e-6, topK: 20 });
  });

  it('top_k −1 and the seam\'s 0 both mean "all tokens" = 1<<30 (the engine rejects 0)', () => {
    expect(toTokenSpeedSampling(spec({ topK: -1 })).topK).toBe(TOP_K_ALL);
    expect(toTokenSpeedSampling(spec({ topK: 0 })).topK).toBe(TOP_K_ALL);
    expect(toTokenSpeedSampling(spec({ topK: 50 })).topK).toBe(50);
  });

  it('empty stop_token_ids become nil; duplicates are dropped in order', () => {
    expect(slot(req(spec({ stopTokenIds: [] })), 'stopTokenIds')).toEqual({ t: 'nil' });
    expect(toTokenSpeedSampling(spec({ stopTokenIds: [5, 2, 5] })).stopTokenIds).toEqual([5, 2]);
  });

  it('internal slots: stop nil, stop_strs [], stop_str_max_len 0, logprobs nil, n 1, is_normalized true', () => {
    const sp = toTokenSpeedSampling(spec());
    expect(sp).toMatchObject({ stop: null, stopStrs: [], stopStrMaxLen: 0, logprobs: null, n: 1, isNormalized: true });
  });

  it('float slots are float64 on the wire even when integral; int slots smallest int', () => {
    const r = req(spec({ temperature: 1, topP: 1, minP: 0, repetitionPenalty: 2, maxTokens: 200 }));
    expect(slot(r, 'temperature')).toEqual({ t: 'float', v: 1, bits: 64 });
    expect(slot(r, 'minP')).toEqual({ t: 'float', v: 0, bits: 64 });
    expect(slot(r, 'repetitionPenalty')).toEqual({ t: 'float', v: 2, bits: 64 });
    expect(slot(r, 'maxNewTokens')).toEqual({ t: 'int', v: 200 });
    expect(slot(r, 'topK')).toEqual({ t: 'int', v: TOP_K_ALL });
  });

  it('the sampling array always has 29 slots and the request 11 elements', () => {
    const w = wire(req(spec()));
    expect(w).toHaveLength(11);
    expect(w[5]).toMatchObject({ t: 'array' });
    expect((w[5] as { v: unknown[] }).v).toHaveLength(29);
  });

  it('seed: nil when unset (engine derives crc32(rid)), the value otherwise', () => {
    expect(slot(req(spec()), 'seed')).toEqual({ t: 'nil' });
    expect(slot(req(spec({ seed: 7 })), 'seed')).toEqual({ t: 'int', v: 7 });
    expect(engineView(req(spec(), { requestId: 'r1' })).sampling.seed).toBe(219023793);
  });

  it('max_new_tokens, min_new_tokens, ignore_eos and skip_special_tokens pass through', () => {
    const sp = engineView(req(spec({ maxTokens: 9, minTokens: 2, ignoreEos: true, skipSpecialTokens: false }))).sampling;
    expect(sp).toMatchObject({ maxNewTokens: 9, minNewTokens: 2, ignoreEos: true, skipSpecialTokens: false });
    expect(sp).toMatchObject({ spacesBetweenSpecialTokens: true, noStopTrim: false, streamInterval: null });
  });

  it('logit_bias becomes a str-keyed float64 map', () => {
    const r = req(spec({ logitBias: new Map([[10, 1], [20, -2.5]]) }));
    expect(slot(r, 'logitBias')).toEqual({
      t: 'map',
      v: [
        [{ t: 'str', v: '10' }, { t: 'float', v: 1, bits: 64 }],
        [{ t: 'str', v: '20' }, { t: 'float', v: -2.5, bits: 64 }],
      ],
    });
    expect(slot(req(spec({ logitBias: new Map() })), 'logitBias')).toEqual({ t: 'nil' });
  });
});

describe('structured outputs → the four grammar slots (§4.4)', () => {
  const grammar = (s: SamplingSpec['structured']) => {
    const sp = toTokenSpeedSampling(spec({ structured: s }));
    return { jsonSchema: sp.jsonSchema, regex: sp.regex, ebnf: sp.ebnf, structuralTag: sp.structuralTag };
  };
  const none = { jsonSchema: null, regex: null, ebnf: null, structuralTag: null };

  it('json_schema object is serialized, a string kept as is', () => {
    expect(grammar({ kind: 'json_schema', schema: { type: 'integer' } })).toEqual({ ...none, jsonSchema: '{"type":"integer"}' });
    expect(grammar({ kind: 'json_schema', schema: '{ "type": "x" }' })).toEqual({ ...none, jsonSchema: '{ "type": "x" }' });
  });

  it('json_object becomes the schema {"type":"object"}', () => {
    expect(grammar({ kind: 'json_object' })).toEqual({ ...none, jsonSchema: '{"type":"object"}' });
  });

  it('regex, grammar (→ ebnf) and structural_tag map to their slots', () => {
    expect(grammar({ kind: 'regex', pattern: '[a-z]+' })).toEqual({ ...none, regex: '[a-z]+' });
    expect(grammar({ kind: 'grammar', grammar: 'root ::= "a"' })).toEqual({ ...none, ebnf: 'root ::= "a"' });
    expect(grammar({ kind: 'structural_tag', tag: '{"type":"x"}' })).toEqual({ ...none, structuralTag: '{"type":"x"}' });
  });

  it('choice becomes an escaped literal alternation', () => {
    const { regex } = grammar({ kind: 'choice', choices: ['yes', 'a.b', '(x|y)*'] });
    expect(regex).toBe('(yes|a\\.b|\\(x\\|y\\)\\*)');
    const re = new RegExp(`^${regex}$`);
    expect(['yes', 'a.b', '(x|y)*'].every((c) => re.test(c))).toBe(true);
    expect(re.test('axb')).toBe(false);
  });

  it('no constraint leaves all four nil', () => {
    expect(grammar(null)).toEqual(none);
  });
});

describe('request fields', () => {
  it('return_logprob follows logprobs != null; top_logprobs_num stays 0', () => {
    expect(wire(req(spec({ logprobs: 0 })))[6]).toEqual({ t: 'bool', v: true });
    expect(wire(req(spec({ logprobs: 3 })))[8]).toEqual({ t: 'int', v: 0 });
    expect(wire(req(spec()))[6]).toEqual({ t: 'bool', v: false });
  });

  it('stream defaults to true and follows EngineRequest.stream', () => {
    expect(wire(req(spec()))[10]).toEqual({ t: 'bool', v: true });
    expect(wire(req(spec(), { stream: false }))[10]).toEqual({ t: 'bool', v: false });
  });

  it('refuses what the engine would silently drop: empty prompt, fractional ints, unsafe seeds', () => {
    expect(() => tokenspeedDialect.encodeAdd(req(spec(), { promptTokenIds: [] }))).toThrow(WireEncodeError);
    expect(() => tokenspeedDialect.encodeAdd(req(spec({ maxTokens: 1.5 })))).toThrow(WireEncodeError);
    expect(() => tokenspeedDialect.encodeAdd(req(spec({ seed: 2 ** 60 })))).toThrow(WireEncodeError);
    expect(() => tokenspeedDialect.encodeAdd(req(spec(), { promptTokenIds: [1, 2.5] }))).toThrow(WireEncodeError);
  });

  it('refuses §4.3 range violations up front, with the reason (the abort row would carry none)', () => {
    const refuse = (over: Partial<SamplingSpec>) => () => tokenspeedDialect.encodeAdd(req(spec(over)));
    expect(refuse({ topK: 128 })).toThrow(/top_k/);
    expect(refuse({ topK: -5 })).toThrow(/top_k/);
    expect(refuse({ topP: 0 })).toThrow(/top_p/);
    expect(refuse({ temperature: -1 })).toThrow(/temperature/);
    expect(refuse({ temperature: Number.NaN })).toThrow(/finite/);
    expect(refuse({ repetitionPenalty: 2.5 })).toThrow(/repetition_penalty/);
    expect(refuse({ minP: 2 })).toThrow(/min_p/);
    expect(refuse({ maxTokens: 2, minTokens: 3 })).toThrow(/max_new_tokens/);
    expect(refuse({ seed: -1 })).toThrow(WireEncodeError);
    expect(refuse({ topK: 127, topP: 1, repetitionPenalty: 0 })).not.toThrow();
  });

  it('a failed encode does not corrupt the next one', () => {
    expect(() => tokenspeedDialect.encodeAdd(req(spec({ maxTokens: 0.5 })))).toThrow();
    expect(engineView(req(spec({ maxTokens: 3 }))).sampling.maxNewTokens).toBe(3);
  });
});

describe('engine-side normalization of the raw form (is_normalized = false)', () => {
  it('copies stop into stop_strs and measures it in characters', () => {
    const sp = normalizeTokenSpeedSampling({ ...defaultSamplingParams(), stop: ['ab', '😀xyz'], stopTokenIds: [] });
    expect(sp).toMatchObject({ stopStrs: ['ab', '😀xyz'], stopStrMaxLen: 4, stopTokenIds: null, topK: TOP_K_ALL });
    expect(normalizeTokenSpeedSampling({ ...defaultSamplingParams(), stop: 'end' }).stopStrs).toEqual(['end']);
  });

  it('is a no-op on an already normalized array (the engine re-derives nothing)', () => {
    const sp = { ...defaultSamplingParams(), isNormalized: true, temperature: 0, topK: -1 };
    expect(normalizeTokenSpeedSampling(sp)).toMatchObject({ temperature: 0, topK: -1 });
  });
});
