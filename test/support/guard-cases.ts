/**
 * Valid requests of every kind the wire guards must let through unchanged, one list per dialect.
 * The guard tests pin the bytes each one encoded to before the guards existed (golden hex in the
 * test files) and decode them with the fake engines' strict decoders.
 */
import type { EngineRequest, SamplingSpec } from '../../src/engine/types.js';
import { samplingSpec } from './sampling.js';

export interface GuardCase {
  name: string;
  request: EngineRequest;
}

function request(sampling: Partial<SamplingSpec>, over: Partial<EngineRequest> = {}): EngineRequest {
  return {
    requestId: 'req-1',
    promptTokenIds: [1, 2, 3],
    sampling: samplingSpec({ maxTokens: 4, ...sampling }),
    arrivalTime: 1700000000,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    ...over,
  };
}

const NESTED_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', enum: ['x', 'ü', '😀'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
    score: { type: 'number', minimum: -1.5, maximum: 1e21 },
  },
  required: ['name'],
  additionalProperties: false,
};

/** Shared by both dialects: each structured-output kind. */
const STRUCTURED_CASES: GuardCase[] = [
  { name: 'json_schema object', request: request({ structured: { kind: 'json_schema', schema: NESTED_SCHEMA } }) },
  {
    name: 'json_schema object text',
    request: request({ structured: { kind: 'json_schema', schema: '{"type":"object","properties":{"n":{"type":"integer"}}}' } }),
  },
  { name: 'json_schema non-object text', request: request({ structured: { kind: 'json_schema', schema: 'true' } }) },
  { name: 'json_schema invalid text', request: request({ structured: { kind: 'json_schema', schema: '{"type": ' } }) },
  { name: 'json_object', request: request({ structured: { kind: 'json_object' } }) },
  { name: 'regex', request: request({ structured: { kind: 'regex', pattern: '\\d+(\\.\\d+)?' } }) },
  { name: 'grammar', request: request({ structured: { kind: 'grammar', grammar: 'root ::= "a" | "b"' } }) },
  { name: 'choice', request: request({ structured: { kind: 'choice', choices: ['yes', 'no.', 'ä|b'] } }) },
  { name: 'structural_tag', request: request({ structured: { kind: 'structural_tag', tag: '{"type":"structural_tag","format":{}}' } }) },
];

export const VLLM_VALID_CASES: GuardCase[] = [
  { name: 'R1 (greedy, max_tokens 4)', request: request({ temperature: 0 }) },
  {
    name: 'every sampling knob set',
    request: request({
      temperature: 0.7,
      topP: 0.9,
      topK: 40,
      minP: 0.05,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      repetitionPenalty: 1.1,
      seed: 42,
      maxTokens: 100,
      minTokens: 2,
      stopTokenIds: [7, 2],
      eosTokenId: 2,
      allStopTokenIds: [2, 9],
      logprobs: 5,
      promptLogprobs: 0,
      skipSpecialTokens: false,
    }),
  },
  { name: 'ignore_eos drops the EOS id', request: request({ ignoreEos: true, eosTokenId: 2, stopTokenIds: [2, 7], allStopTokenIds: [2] }) },
  { name: 'boundaries', request: request({ temperature: 2, topP: 1e-9, minP: 1, presencePenalty: -2, frequencyPenalty: 2, repetitionPenalty: 1e-9, maxTokens: 1, minTokens: 1, logprobs: 20, promptLogprobs: 20 }) },
  { name: 'unset markers (top_k -1, seed -1)', request: request({ topK: -1, seed: -1 }) },
  { name: 'large seed and top_k', request: request({ seed: Number.MAX_SAFE_INTEGER, topK: 2 ** 40 }) },
  { name: 'negative seed', request: request({ seed: -(2 ** 31) }) },
  { name: 'logit_bias with clamped values', request: request({ logitBias: new Map([[5, 1.5], [6, -Infinity], [7, 250], [0, 0]]) }) },
  { name: 'allowed ids and bad words', request: request({ allowedTokenIds: [1, 2], badWordsTokenIds: [[3, 4], [5]] }) },
  ...STRUCTURED_CASES,
  {
    name: 'request fields set',
    request: request({}, { requestId: 'ré-😀-1', cacheSalt: 'tenant-1', dataParallelRank: 1, priority: -3, arrivalTime: 1700000000.25 }),
  },
  { name: 'token id edges', request: request({}, { promptTokenIds: [0, 2 ** 31 - 1, 151643] }) },
];

export const TOKENSPEED_VALID_CASES: GuardCase[] = [
  { name: 'plain', request: request({ topK: -1 }) },
  {
    name: 'every sampling knob set',
    request: request(
      {
        temperature: 0.7,
        topP: 0.9,
        topK: 40,
        minP: 0.05,
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        repetitionPenalty: 0,
        seed: 42,
        maxTokens: 100,
        minTokens: 2,
        stopTokenIds: [7, 7, 9],
        ignoreEos: true,
        skipSpecialTokens: false,
        logprobs: 0,
      },
      { stream: false },
    ),
  },
  { name: 'greedy collapse', request: request({ temperature: 0, topK: 20 }) },
  { name: 'boundaries', request: request({ topP: 1e-9, minP: 1, presencePenalty: -2, frequencyPenalty: 2, repetitionPenalty: 2, maxTokens: 0, minTokens: 0 }) },
  { name: 'top_k 127', request: request({ topK: 127 }) },
  { name: 'top_k 0 (disabled)', request: request({ topK: 0 }) },
  { name: 'top_k 1<<30', request: request({ topK: 2 ** 30 }) },
  { name: 'seed edges', request: request({ seed: Number.MAX_SAFE_INTEGER }) },
  { name: 'seed 0', request: request({ seed: 0 }) },
  { name: 'logit_bias', request: request({ logitBias: new Map([[5, 1.5], [6, -2], [0, 100]]) }) },
  ...STRUCTURED_CASES,
  { name: 'token id edges', request: request({}, { promptTokenIds: [0, 2 ** 31 - 1, 151643], requestId: 'ré-😀-1' }) },
];
