/**
 * Routing policies choose one worker among the ready workers of a model. They see workers, never
 * engine ranks (a grouped worker picks its rank itself).
 */
import type { Logger } from '../../util/logger.js';
import type { PolicyName, PolicyOptions } from '../types.js';
import type { RoutingHints } from './routing-hints.js';

export interface RoutableWorker {
  readonly id: string;
  readonly url: string;
  loadScore(): number;
}

export interface RoutingPolicy {
  readonly name: PolicyName;
  /**
   * `candidates` is non-empty, ready only, in registration order; `hints` are the request's
   * routing headers. May throw RoutingError to refuse the request.
   */
  select<W extends RoutableWorker>(candidates: readonly W[], tokenIds: readonly number[], hints?: RoutingHints): W;
  /** Drops any per-worker state (cache trees) when a worker leaves. */
  removeWorker?(workerId: string): void;
}

export interface PolicyEnv {
  modelId: string;
  logger: Logger;
  /** Uniform [0, 1); injected so tests are deterministic. */
  random: () => number;
  /** Defaults to defaultPolicyOptions(). */
  options?: PolicyOptions;
  /** Injected clock (ms) for idle eviction. */
  now?: () => number;
}

/**
 * Lowest load wins; ties go to the first at or after `start`, so equal loads rotate. `loads[i]` is
 * candidate i's loadScore() when the caller already has it (a score copies the engine's rank table).
 */
export function leastLoaded<W extends RoutableWorker>(
  candidates: readonly W[],
  start = 0,
  loads: readonly number[] = candidates.map((w) => w.loadScore()),
): W {
  const n = candidates.length;
  let best = start % n;
  for (let i = 1; i < n; i++) {
    const j = (start + i) % n;
    if (loads[j] < loads[best]) best = j;
  }
  return candidates[best];
}
