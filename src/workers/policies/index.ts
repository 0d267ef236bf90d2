import type { PolicyName } from '../types.js';
import { CacheAwarePolicy } from './cache-aware.js';
import { LeastLoadPolicy } from './least-load.js';
import { PassthroughPolicy } from './passthrough.js';
import type { PolicyEnv, RoutingPolicy } from './policy.js';
import { PowerOfTwoPolicy } from './power-of-two.js';
import { RandomPolicy } from './random.js';
import { RoundRobinPolicy } from './round-robin.js';

export type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';

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
  }
}
