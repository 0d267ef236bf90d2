import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';

/** Two distinct random workers; the one with the lower load score (reported load and in-flight) wins. */
export class PowerOfTwoPolicy implements RoutingPolicy {
  readonly name = 'power_of_two' as const;

  constructor(private readonly env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[]): W {
    const n = candidates.length;
    if (n === 1) return candidates[0];
    const i = Math.floor(this.env.random() * n) % n;
    // Second pick from the other n-1 slots keeps the two distinct without a retry loop.
    const j = (i + 1 + (Math.floor(this.env.random() * (n - 1)) % (n - 1))) % n;
    const a = candidates[i];
    const b = candidates[j];
    return b.loadScore() < a.loadScore() ? b : a;
  }
}
