/**
 * TokenSpeed's SamplingParams validation table (§4.3, §4.8), shared by both sides: the fake engine
 * turns a violation into an admission abort row, the gateway's wire guard refuses to send it at
 * all (a precise message beats the wire's message-less `abort`).
 */
import type { TsSamplingParams } from './sampling-layout.js';
import { TOP_K_ALL, TOP_K_KERNEL_LIMIT } from './wire-constants.js';

/** A broken rule: the sampling slot it is about (wire name) and the engine-side text. */
export interface SamplingRangeViolation {
  field: string;
  message: string;
}

/**
 * Checked on the finalized (normalized) params, like the engine does, in table order; the first
 * violation wins. `vocabSize` null skips the logit_bias range check.
 */
export function samplingRangeProblem(sp: TsSamplingParams, vocabSize: number | null): string | null {
  return samplingRangeViolation(sp, vocabSize)?.message ?? null;
}

/** `samplingRangeProblem` with the slot it concerns, so the gateway can name the wire field. */
export function samplingRangeViolation(sp: TsSamplingParams, vocabSize: number | null): SamplingRangeViolation | null {
  if (sp.temperature < 0) return broken('temperature', `temperature must be non-negative, got ${sp.temperature}`);
  if (!(sp.topP > 0 && sp.topP <= 1)) return broken('top_p', `top_p must be in (0, 1], got ${sp.topP}`);
  // −1 survives only with is_normalized = true, where the engine accepts it (§4.3.1).
  if (sp.topK === 0 || sp.topK < -1 || (sp.topK >= TOP_K_KERNEL_LIMIT && sp.topK !== TOP_K_ALL)) {
    return broken('top_k', `top_k must be -1 or in [1, ${TOP_K_KERNEL_LIMIT}), got ${sp.topK}`);
  }
  if (!(sp.minP >= 0 && sp.minP <= 1)) return broken('min_p', `min_p must be in [0, 1], got ${sp.minP}`);
  if (!(sp.frequencyPenalty >= -2 && sp.frequencyPenalty <= 2)) {
    return broken('frequency_penalty', `frequency_penalty must be in [-2, 2], got ${sp.frequencyPenalty}`);
  }
  if (!(sp.presencePenalty >= -2 && sp.presencePenalty <= 2)) {
    return broken('presence_penalty', `presence_penalty must be in [-2, 2], got ${sp.presencePenalty}`);
  }
  if (!(sp.repetitionPenalty >= 0 && sp.repetitionPenalty <= 2)) {
    return broken('repetition_penalty', `repetition_penalty must be in [0, 2], got ${sp.repetitionPenalty}`);
  }
  if (sp.minNewTokens < 0) return broken('min_new_tokens', `min_new_tokens must be non-negative, got ${sp.minNewTokens}`);
  if (sp.maxNewTokens !== null) {
    if (sp.maxNewTokens < 0) return broken('max_new_tokens', `max_new_tokens must be non-negative, got ${sp.maxNewTokens}`);
    if (sp.maxNewTokens < sp.minNewTokens) {
      return broken('max_new_tokens', `max_new_tokens (${sp.maxNewTokens}) must be >= min_new_tokens (${sp.minNewTokens})`);
    }
  }
  if (sp.logitBias !== null && vocabSize !== null) {
    for (const key of Object.keys(sp.logitBias)) {
      if (!/^\d+$/.test(key) || Number(key) >= vocabSize) return broken('logit_bias', `logit_bias token id ${key} is out of vocab`);
    }
  }
  if (sp.logprobs !== null && sp.logprobs !== 0) return broken('logprobs', `logprobs must be nil or 0, got ${sp.logprobs}`);
  const grammars = (sp.jsonSchema !== null ? 1 : 0) + (sp.regex !== null ? 1 : 0) + (sp.ebnf !== null ? 1 : 0);
  if (grammars > 1) return broken('json_schema', 'only one of json_schema, regex and ebnf can be set');
  return null;
}

function broken(field: string, message: string): SamplingRangeViolation {
  return { field, message };
}
