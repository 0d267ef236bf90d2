import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';

export class RoundRobinPolicy implements RoutingPolicy {
  readonly name = 'round_robin' as const;
  private next = 0;

  constructor(_env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[]): W {
    const w = candidates[this.next % candidates.length];
    this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER;
    return w;
  }
}
