/**
 * The one SamplingSpec literal the unit and e2e tests build on: every field spelled out once, so a
 * field added to SamplingSpec is added to the fixtures in one place.
 */
import type { SamplingSpec } from '../../src/engine/types.js';

/** A SamplingSpec at vLLM's defaults (temperature 1, max_tokens 16), with overrides. */
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
