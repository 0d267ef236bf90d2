import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';

/** Everything goes to the first healthy worker; meant for single-worker deployments. */
export class PassthroughPolicy implements RoutingPolicy {
  readonly name = 'passthrough' as const;
  private warned = false;

  constructor(private readonly env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[]): W {
    if (candidates.length > 1 && !this.warned) {
      this.warned = true;
      this.env.logger.warn(
        `passthrough policy for model ${this.env.modelId} has ${candidates.length} healthy workers; every request goes to the first one (${candidates[0].url})`,
      );
    }
    return candidates[0];
  }
}
