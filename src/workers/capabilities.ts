/**
 * What a request needs from an engine beyond plain generation, and which runtimes provide it, so
 * a pool that mixes vLLM and TokenSpeed workers for one model sends each request where it can be
 * served. TokenSpeed's ZMQ output carries only the sampled token's logprob and no prompt
 * logprobs (request-pipeline §9.2, §3.5; wire-tokenspeed §4.5); vLLM returns up to its
 * `max_logprobs` (20 by default) ranked candidates and prompt logprobs.
 */
import type { RuntimeType } from '../engine/types.js';

export interface RequestNeeds {
  /** Ranked logprob candidates asked per generated token (chat `top_logprobs`, completions `logprobs`). */
  topLogprobs?: number;
  /** Logprobs of the prompt tokens. */
  promptLogprobs?: boolean;
}

/** Most ranked candidates per token each runtime returns over ZMQ. */
const MAX_TOP_LOGPROBS: Record<RuntimeType, number> = { vllm: 20, tokenspeed: 1 };
const PROMPT_LOGPROBS: Record<RuntimeType, boolean> = { vllm: true, tokenspeed: false };

export function runtimeServes(runtime: RuntimeType, needs: RequestNeeds): boolean {
  if ((needs.topLogprobs ?? 0) > MAX_TOP_LOGPROBS[runtime]) return false;
  if (needs.promptLogprobs === true && !PROMPT_LOGPROBS[runtime]) return false;
  return true;
}

/** True when the request needs nothing some runtime might lack (the common case: no filtering). */
export function needsNothing(needs: RequestNeeds | undefined): boolean {
  return needs === undefined || ((needs.topLogprobs ?? 0) <= 1 && needs.promptLogprobs !== true);
}
