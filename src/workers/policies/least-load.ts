import { leastLoaded, type PolicyEnv, type RoutableWorker, type RoutingPolicy } from './policy.js';

export class LeastLoadPolicy implements RoutingPolicy {
  readonly name = 'least_load' as const;
  private start = 0;

  constructor(_env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[]): W {
    this.start = (this.start + 1) % Number.MAX_SAFE_INTEGER;
    return leastLoaded(candidates, this.start);
  }
}
