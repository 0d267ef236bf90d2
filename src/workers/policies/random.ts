import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';

export class RandomPolicy implements RoutingPolicy {
  readonly name = 'random' as const;

  constructor(private readonly env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[]): W {
    return candidates[Math.floor(this.env.random() * candidates.length) % candidates.length];
  }
}
