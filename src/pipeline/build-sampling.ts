import type { RuntimeType, SamplingSpec } from '../engine/types.js';
import { PipelineError, invalid } from './errors.js';
import type { DecodeRules } from './generate.js';
import type { SamplingRequest } from './request.js';
import { type StopPlan, planStopStrings } from './stop-plan.js';

/** What request building needs from the tokenizer. */
export interface StopVocabulary {
  encode(text: string, addSpecialTokens?: boolean): number[];
  /** EOS ids, primary first (request-pipeline §5.4). */
  eosTokenIds: readonly number[];
  vocabSize: number;
}

export interface BuiltSampling {
  spec: SamplingSpec;
  /** Token ids that end a choice in the gateway decoder, with the stop string they stand for (if any). */
  stopTokens: Map<number, string | null>;
  /** Stop strings matched on decoded text. */
  stopStrings: string[];
}

/**
 * Map a validated request onto the engine's sampling spec and reject, before anything is sent,
 * every value a real engine would choke on silently (request-pipeline §5.6): prompt length vs the
 * context, max_tokens beyond it, min_tokens above the effective max_tokens.
 */
export function buildSampling(
  req: SamplingRequest,
  opts: {
    runtime: RuntimeType;
    promptLen: number;
    maxModelLen: number;
    vocab: StopVocabulary;
    /** Ranked logprob candidates to ask the engine for, or null. */
    logprobs: number | null;
    /** `req.stop` already planned (planStopStrings), so a request encodes its stops once. */
    stopPlan?: StopPlan;
  },
): BuiltSampling {
  const { promptLen, maxModelLen, vocab } = opts;
  if (promptLen === 0) throw invalid('The prompt is empty: at least one token is required');
  if (promptLen >= maxModelLen) {
    throw new PipelineError(
      400,
      'context_length_exceeded',
      `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptLen} input tokens. Please reduce the length of the input messages.`,
      true,
    );
  }
  const room = maxModelLen - promptLen;
  if (req.maxTokens !== undefined && req.maxTokens > room && !req.maxTokensCeiling) {
    throw new PipelineError(
      400,
      'context_length_exceeded',
      `'max_tokens' or 'max_completion_tokens' is too large: ${req.maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptLen} input tokens (${req.maxTokens} > ${maxModelLen} - ${promptLen}).`,
      true,
      'max_tokens',
    );
  }
  const maxTokens = req.maxTokens === undefined ? room : Math.min(req.maxTokens, room);
  if (req.minTokens > maxTokens) throw invalid('min_tokens cannot exceed max_tokens/max_completion_tokens');
  if (req.logitBias) {
    for (const id of req.logitBias.keys()) {
      if (id >= vocab.vocabSize) throw invalid(`logit_bias: token id ${id} is out of vocabulary (size ${vocab.vocabSize})`);
    }
  }

  const stopTokens = new Map<number, string | null>();
  const engineStops: number[] = [];
  const addStop = (id: number) => {
    if (!engineStops.includes(id)) engineStops.push(id);
  };
  for (const id of req.stopTokenIds) {
    addStop(id);
    stopTokens.set(id, null);
  }
  // A stop string that is exactly one token is also handed to the engine so it stops at once.
  for (const [id, s] of (opts.stopPlan ?? planStopStrings(req.stop, vocab)).tokenStopStrings) {
    addStop(id);
    stopTokens.set(id, s);
  }
  const eos = req.ignoreEos ? [] : [...vocab.eosTokenIds];
  for (const id of eos) if (!stopTokens.has(id)) stopTokens.set(id, null);
  // vLLM has no tokenizer: EOS must ride the request. TokenSpeed stops at EOS on its own.
  if (opts.runtime === 'vllm') for (const id of eos) addStop(id);

  const temperature = req.temperature ?? 1;
  const spec: SamplingSpec = {
    temperature,
    topP: req.topP ?? 1,
    topK: req.topK === undefined || req.topK < 0 ? 0 : req.topK,
    minP: req.minP ?? 0,
    presencePenalty: req.presencePenalty ?? 0,
    frequencyPenalty: req.frequencyPenalty ?? 0,
    repetitionPenalty: req.repetitionPenalty ?? 1,
    seed: req.seed ?? null,
    maxTokens,
    minTokens: req.minTokens,
    stopTokenIds: engineStops,
    eosTokenId: eos.length > 0 ? eos[0] : null,
    // vLLM masks these until min_tokens; SMG includes EOS here even with ignore_eos (§5.2).
    allStopTokenIds: [...new Set([...engineStops, ...vocab.eosTokenIds])],
    ignoreEos: req.ignoreEos,
    logprobs: opts.logprobs,
    promptLogprobs: null,
    logitBias: req.logitBias,
    allowedTokenIds: null,
    badWordsTokenIds: null,
    structured: req.structured,
    skipSpecialTokens: req.skipSpecialTokens,
  };
  return { spec, stopTokens, stopStrings: req.stop };
}

/** TokenSpeed's ZMQ output carries only the sampled token's logprob (request-pipeline §9.2). */
export function checkTopLogprobs(runtime: RuntimeType, requested: number): void {
  if (runtime === 'tokenspeed' && requested > 1) {
    throw new PipelineError(400, 'start_generation_failed', 'top_logprobs are not supported over the TokenSpeed ZMQ backend');
  }
}

/** The gateway decoder's stop rules for choices sampled with `built` (request-pipeline §6.2). */
export function decodeRules(
  plan: StopPlan,
  built: BuiltSampling,
  opts: { keepStop: boolean; skipSpecialTokens: boolean },
): DecodeRules {
  return {
    stopStrings: plan.textStops,
    tokenStopStrings: plan.tokenStopStrings,
    stopTokenIds: [...built.stopTokens.keys()],
    keepStop: opts.keepStop,
    skipSpecialTokens: opts.skipSpecialTokens,
  };
}
