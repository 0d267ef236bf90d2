/**
 * vLLM's SamplingParams validation (`_verify_args` + greedy check, spec wire-vllm §3.3), shared by
 * both sides: the gateway's wire guard refuses to send what the engine would reject (a rejected
 * ADD kills the engine's input thread silently — Errata 1), and the fake engine rejects exactly
 * the same things. Texts are vLLM's VLLMValidationError wording (vllm/sampling_params.py).
 */

/** The numeric knobs both sides validate; `SamplingSpec` satisfies the non-optional part. */
export interface SamplingNumbers {
  temperature: number;
  topP: number;
  topK: number;
  minP: number;
  presencePenalty: number;
  frequencyPenalty: number;
  repetitionPenalty: number;
  maxTokens: number | null;
  minTokens: number;
  logprobs: number | null;
  promptLogprobs: number | null;
  n?: number;
  streamInterval?: number | null;
}

/** A broken rule: the `sampling_params` key it is about, and vLLM's message. */
export interface SamplingRuleViolation {
  field: string;
  message: string;
}

/** VLLM_MAX_N_SEQUENCES default. */
export const MAX_N_SEQUENCES = 16384;
/** Below this temperature vLLM samples greedily. */
export const GREEDY_EPSILON = 1e-5;
/** 0 < temperature < this is raised to it by the engine. */
export const MIN_TEMPERATURE = 1e-2;

/** The first rule `p` breaks, worded like vLLM's VLLMValidationError, or null when valid. */
export function samplingViolation(p: SamplingNumbers): string | null {
  return samplingRuleViolation(p)?.message ?? null;
}

/** `samplingViolation` with the key it concerns, so the gateway can name the wire field. */
export function samplingRuleViolation(p: SamplingNumbers): SamplingRuleViolation | null {
  const n = p.n ?? 1;
  if (!Number.isInteger(n) || n < 1) return broken('n', `n must be at least 1, got ${n}.`);
  if (n > MAX_N_SEQUENCES) return broken('n', `n must be at most ${MAX_N_SEQUENCES}, got ${n}.`);
  if (!(p.presencePenalty >= -2 && p.presencePenalty <= 2)) {
    return broken('presence_penalty', `presence_penalty must be in [-2, 2], got ${p.presencePenalty}.`);
  }
  if (!(p.frequencyPenalty >= -2 && p.frequencyPenalty <= 2)) {
    return broken('frequency_penalty', `frequency_penalty must be in [-2, 2], got ${p.frequencyPenalty}.`);
  }
  if (!Number.isFinite(p.repetitionPenalty)) {
    return broken('repetition_penalty', `repetition_penalty must be a finite number, got ${p.repetitionPenalty}.`);
  }
  if (p.repetitionPenalty <= 0) {
    return broken('repetition_penalty', `repetition_penalty must be greater than zero, got ${p.repetitionPenalty}.`);
  }
  if (!Number.isFinite(p.temperature)) return broken('temperature', `temperature must be a finite number, got ${p.temperature}.`);
  if (p.temperature < 0) return broken('temperature', `temperature must be non-negative, got ${p.temperature}.`);
  if (p.temperature > 2) return broken('temperature', `temperature must be in [0, 2], got ${p.temperature}.`);
  if (!(p.topP > 0 && p.topP <= 1)) return broken('top_p', `top_p must be in (0, 1], got ${p.topP}.`);
  if (!Number.isInteger(p.topK)) return broken('top_k', `top_k must be an integer, got ${p.topK}`);
  if (p.topK < -1) return broken('top_k', `top_k must be 0 (disable), or at least 1, got ${p.topK}.`);
  if (!(p.minP >= 0 && p.minP <= 1)) return broken('min_p', `min_p must be in [0, 1], got ${p.minP}.`);
  if (p.maxTokens !== null && p.maxTokens < 1) return broken('max_tokens', `max_tokens must be at least 1, got ${p.maxTokens}.`);
  if (p.minTokens < 0) return broken('min_tokens', `min_tokens must be greater than or equal to 0, got ${p.minTokens}.`);
  if (p.maxTokens !== null && p.minTokens > p.maxTokens) {
    return broken('min_tokens', `min_tokens must be less than or equal to max_tokens=${p.maxTokens}, got ${p.minTokens}.`);
  }
  const si = p.streamInterval ?? null;
  if (si !== null && si < 1) return broken('stream_interval', `stream_interval must be at least 1, got ${si}.`);
  if (p.logprobs !== null && p.logprobs !== -1 && p.logprobs < 0) {
    return broken('logprobs', `logprobs must be non-negative or -1, got ${p.logprobs}.`);
  }
  if (p.promptLogprobs !== null && p.promptLogprobs !== -1 && p.promptLogprobs < 0) {
    return broken('prompt_logprobs', `prompt_logprobs must be non-negative or -1, got ${p.promptLogprobs}.`);
  }
  if (p.temperature < GREEDY_EPSILON && n > 1) return broken('n', `n must be 1 when using greedy sampling, got ${n}.`);
  return null;
}

function broken(field: string, message: string): SamplingRuleViolation {
  return { field, message };
}
