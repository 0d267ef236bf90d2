import type { PolicyName } from '../types.js';
import { CacheAwarePolicy } from './cache-aware.js';
import { ConsistentHashingPolicy } from './consistent-hashing.js';
import { ManualPolicy } from './manual.js';
import { PrefixHashPolicy } from './prefix-hash.js';
import { LeastLoadPolicy } from './least-load.js';
import { PassthroughPolicy } from './passthrough.js';
import type { PolicyEnv, RoutingPolicy } from './policy.js';
import { PowerOfTwoPolicy } from './power-of-two.js';
import { RandomPolicy } from './random.js';
import { RoundRobinPolicy } from './round-robin.js';

export type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';
export { NO_HINTS, RoutingError, routingHintsFrom, type RoutingHints } from './routing-hints.js';

/** Policies that read the request's routing headers (the gateway parses them only for these). */
export const HINTED_POLICIES: ReadonlySet<PolicyName> = new Set(['consistent_hashing', 'prefix_hash', 'manual']);

export function createPolicy(name: PolicyName, env: PolicyEnv): RoutingPolicy {
  switch (name) {
    case 'cache_aware':
      return new CacheAwarePolicy(env);
    case 'random':
      return new RandomPolicy(env);
    case 'round_robin':
      return new RoundRobinPolicy(env);
    case 'power_of_two':
      return new PowerOfTwoPolicy(env);
    case 'least_load':
      return new LeastLoadPolicy(env);
    case 'passthrough':
      return new PassthroughPolicy(env);
    case 'consistent_hashing':
      return new ConsistentHashingPolicy(env);
    case 'prefix_hash':
      return new PrefixHashPolicy(env);
    case 'manual':
      return new ManualPolicy(env);
  }
}
