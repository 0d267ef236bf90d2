/**
 * Fake but deterministic logprobs. One entry per position: the sampled token, its logprob and its
 * vocab rank, plus K ranked candidates (the codec lays them out as vLLM's [P, K+1] rows, §5.5).
 * The sampled token is always the argmax here, so it is also the first candidate and has rank 1.
 */
import type { TokenLogprob } from '../engine/types.js';

/** Same value for the same position, different across positions, always < 0. */
function sampledLogprob(position: number): number {
  return -(0.125 + 0.0625 * (position % 8));
}

function entry(token: number, position: number, k: number): TokenLogprob {
  const lp = sampledLogprob(position);
  const top = Array.from({ length: k }, (_, j) => ({ tokenId: token + j, logprob: lp - 0.5 * j }));
  return { tokenId: token, logprob: lp, rank: 1, top };
}

/** Sample logprobs for tokens generated at output positions start, start+1, …. */
export function sampleLogprobs(tokens: number[], start: number, k: number): TokenLogprob[] {
  return tokens.map((t, i) => entry(t, start + i, k));
}

/** Prompt logprobs: one entry per prompt token after the first (the first has no logprob). */
export function promptLogprobs(prompt: number[], k: number): TokenLogprob[] {
  const out: TokenLogprob[] = [];
  for (let i = 1; i < prompt.length; i++) out.push(entry(prompt[i], i, k));
  return out;
}

/**
 * `logprobs = -1` asks for the whole vocabulary, which a mock without a vocab cannot produce;
 * it answers with the sampled token only (K = 0) rather than the empty-id-array form.
 */
export function effectiveK(k: number): number {
  return k < 0 ? 0 : k;
}
