/**
 * TokenSpeed's SamplingParams validation table (§4.3, §4.8), shared by both sides: the fake engine
 * turns a violation into an admission abort row, the gateway refuses to send it at all (a precise
 * message beats the wire's message-less `abort`).
 */
import type { SamplingSpec } from '../../types.js';
import type { TsSamplingParams } from './sampling-layout.js';
import { TOP_K_ALL, TOP_K_KERNEL_LIMIT } from './wire-constants.js';

/**
 * Checked on the finalized (normalized) params, like the engine does, in table order; the first
 * violation wins. `vocabSize` null skips the logit_bias range check.
 */
export function samplingRangeProblem(sp: TsSamplingParams, vocabSize: number | null): string | null {
  if (sp.temperature < 0) return `temperature must be non-negative, got ${sp.temperature}`;
  if (!(sp.topP > 0 && sp.topP <= 1)) return `top_p must be in (0, 1], got ${sp.topP}`;
  // −1 survives only with is_normalized = true, where the engine accepts it (§4.3.1).
  if (sp.topK === 0 || sp.topK < -1 || (sp.topK >= TOP_K_KERNEL_LIMIT && sp.topK !== TOP_K_ALL)) {
    return `top_k must be -1 or in [1, ${TOP_K_KERNEL_LIMIT}), got ${sp.topK}`;
  }
  if (!(sp.minP >= 0 && sp.minP <= 1)) return `min_p must be in [0, 1], got ${sp.minP}`;
  if (!(sp.frequencyPenalty >= -2 && sp.frequencyPenalty <= 2)) {
    return `frequency_penalty must be in [-2, 2], got ${sp.frequencyPenalty}`;
  }
  if (!(sp.presencePenalty >= -2 && sp.presencePenalty <= 2)) {
    return `presence_penalty must be in [-2, 2], got ${sp.presencePenalty}`;
  }
  if (!(sp.repetitionPenalty >= 0 && sp.repetitionPenalty <= 2)) {
    return `repetition_penalty must be in [0, 2], got ${sp.repetitionPenalty}`;
  }
  if (sp.minNewTokens < 0) return `min_new_tokens must be non-negative, got ${sp.minNewTokens}`;
  if (sp.maxNewTokens !== null) {
    if (sp.maxNewTokens < 0) return `max_new_tokens must be non-negative, got ${sp.maxNewTokens}`;
    if (sp.maxNewTokens < sp.minNewTokens) {
      return `max_new_tokens (${sp.maxNewTokens}) must be >= min_new_tokens (${sp.minNewTokens})`;
    }
  }
  if (sp.logitBias !== null && vocabSize !== null) {
    for (const key of Object.keys(sp.logitBias)) {
      if (!/^\d+$/.test(key) || Number(key) >= vocabSize) return `logit_bias token id ${key} is out of vocab`;
    }
  }
  if (sp.logprobs !== null && sp.logprobs !== 0) return `logprobs must be nil or 0, got ${sp.logprobs}`;
  const grammars = [sp.jsonSchema, sp.regex, sp.ebnf].filter((g) => g !== null).length;
  if (grammars > 1) return 'only one of json_schema, regex and ebnf can be set';
  return null;
}

/**
 * Gateway-only extras, on the seam's values before normalization: what the engine accepts but
 * then mis-handles (§4.8 "Not validated", §13.6) — non-finite floats, a seed outside int64
 * (JS-safe range here) — and a negative temperature, which the greedy collapse would otherwise
 * quietly turn into a valid greedy request.
 */
export function gatewayOnlyProblem(spec: SamplingSpec): string | null {
  const floats: Array<[string, number]> = [
    ['temperature', spec.temperature],
    ['top_p', spec.topP],
    ['min_p', spec.minP],
    ['frequency_penalty', spec.frequencyPenalty],
    ['presence_penalty', spec.presencePenalty],
    ['repetition_penalty', spec.repetitionPenalty],
  ];
  for (const [name, v] of floats) if (!Number.isFinite(v)) return `${name} must be a finite number, got ${v}`;
  if (spec.temperature < 0) return `temperature must be non-negative, got ${spec.temperature}`;
  if (spec.seed !== null && !(Number.isSafeInteger(spec.seed) && spec.seed >= 0)) {
    return `seed must be an integer in [0, 2^53), got ${spec.seed}`;
  }
  return null;
}
