/**
 * n > 1 fan-out (request-pipeline §8.1): sub-request i gets wire id `<base>-i` and seed + i; a
 * single choice keeps the base id and the spec untouched.
 */
import type { RuntimeType, SamplingSpec } from '../engine/types.js';

export interface ChoiceSpec {
  /** Index of this choice in the response. */
  index: number;
  wireId: string;
  promptTokenIds: number[];
  sampling: SamplingSpec;
}

export function fanOut(
  firstIndex: number,
  wireBase: string,
  promptTokenIds: number[],
  spec: SamplingSpec,
  n: number,
  runtime: RuntimeType = 'vllm',
): ChoiceSpec[] {
  if (n === 1) return [{ index: firstIndex, wireId: wireBase, promptTokenIds, sampling: spec }];
  const out: ChoiceSpec[] = [];
  for (let i = 0; i < n; i++) {
    const seed = runtime === 'tokenspeed' ? tokenSpeedSubSeed(spec.seed, i) : subSeed(spec.seed, i);
    out.push({ index: firstIndex + i, wireId: `${wireBase}-${i}`, promptTokenIds, sampling: { ...spec, seed } });
  }
  return out;
}

/** Seed for fan-out sub-request i: seed + i with i32 wrap-around (vLLM's rule). */
export function subSeed(seed: number | null, i: number): number | null {
  if (seed === null) return null;
  return (seed + i) | 0;
}

/** TokenSpeed seeds are unsigned 64-bit and wrap there (§8.1); within 2^53 that is a plain sum. */
function tokenSpeedSubSeed(seed: number | null, i: number): number | null {
  if (seed === null) return null;
  const s = seed + i;
  return s < 2 ** 53 ? s : s - 2 ** 53;
}
