/**
 * n > 1 fan-out (request-pipeline §8.1): sub-request i gets wire id `<base>-i` and seed + i; a
 * single choice keeps the base id and the spec untouched.
 */
import type { SamplingSpec } from '../engine/types.js';

export interface ChoiceSpec {
  /** Index of this choice in the response. */
  index: number;
  wireId: string;
  promptTokenIds: number[];
  sampling: SamplingSpec;
}

export function fanOut(firstIndex: number, wireBase: string, promptTokenIds: number[], spec: SamplingSpec, n: number): ChoiceSpec[] {
  if (n === 1) return [{ index: firstIndex, wireId: wireBase, promptTokenIds, sampling: spec }];
  const out: ChoiceSpec[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ index: firstIndex + i, wireId: `${wireBase}-${i}`, promptTokenIds, sampling: { ...spec, seed: subSeed(spec.seed, i) } });
  }
  return out;
}

/** Seed for fan-out sub-request i: seed + i with i32 wrap-around (vLLM's rule). */
export function subSeed(seed: number | null, i: number): number | null {
  if (seed === null) return null;
  return (seed + i) | 0;
}
