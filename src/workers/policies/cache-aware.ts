/**
 * cache_aware: send a prompt where its prefix was sent before, unless the fleet is unbalanced.
 * ZMQ engines publish no KV events, so "where it was sent before" is the gateway's own record
 * (ApproxPrefixIndex), not the engine's real cache.
 */
import { ApproxPrefixIndex, blockChain } from './prefix-index.js';
import { leastLoaded, type PolicyEnv, type RoutableWorker, type RoutingPolicy } from './policy.js';

export interface CacheAwareOptions {
  /** Minimum matched fraction of the prompt to follow the cache (SMG default 0.3). */
  cacheThreshold: number;
  /** Load spread that counts as unbalanced: max − min > abs AND max > min × rel (SMG 64, 1.5). */
  balanceAbsThreshold: number;
  balanceRelThreshold: number;
  maxBlocksPerWorker: number;
}

const DEFAULTS: CacheAwareOptions = {
  cacheThreshold: 0.3,
  balanceAbsThreshold: 64,
  balanceRelThreshold: 1.5,
  maxBlocksPerWorker: 1 << 16,
};

export class CacheAwarePolicy implements RoutingPolicy {
  readonly name = 'cache_aware' as const;
  private readonly opts: CacheAwareOptions;
  private readonly index: ApproxPrefixIndex;
  private rotation = 0;

  constructor(_env: PolicyEnv, opts: Partial<CacheAwareOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
    this.index = new ApproxPrefixIndex(this.opts.maxBlocksPerWorker);
  }

  select<W extends RoutableWorker>(candidates: readonly W[], tokenIds: readonly number[]): W {
    this.rotation = (this.rotation + 1) % Number.MAX_SAFE_INTEGER;
    // A lone candidate needs no prefix record: the usual single-host deployment (one engine group
    // per model) would pay ~100 µs of event loop per 2k-token prompt to keep a tree it never reads.
    // A fleet that grows, or a worker back from being unhealthy, starts from what it learns next.
    if (candidates.length === 1) return candidates[0];
    const chain = blockChain(tokenIds);
    const chosen = this.choose(candidates, chain, tokenIds.length);
    if (chain.length > 0) this.index.insert(chosen.id, chain);
    return chosen;
  }

  removeWorker(workerId: string): void {
    this.index.removeWorker(workerId);
  }

  private choose<W extends RoutableWorker>(candidates: readonly W[], chain: ReturnType<typeof blockChain>, total: number): W {
    const loads = candidates.map((w) => w.loadScore());
    const max = Math.max(...loads);
    const min = Math.min(...loads);
    const { balanceAbsThreshold: abs, balanceRelThreshold: rel } = this.opts;
    if (total === 0 || (max - min > abs && max > min * rel)) return leastLoaded(candidates, this.rotation, loads);

    let best = -1;
    let bestMatch = -1;
    candidates.forEach((w, i) => {
      const m = this.index.matchedTokens(w.id, chain);
      if (m > bestMatch || (m === bestMatch && loads[i] < loads[best])) {
        best = i;
        bestMatch = m;
      }
    });
    if (bestMatch / total > this.opts.cacheThreshold) return candidates[best];

    // No useful hit: the worker holding the least cached state has the most room to build it.
    let room = 0;
    let roomSize = this.index.size(candidates[0].id);
    for (let i = 1; i < candidates.length; i++) {
      const size = this.index.size(candidates[i].id);
      if (size < roomSize || (size === roomSize && loads[i] < loads[room])) {
        room = i;
        roomSize = size;
      }
    }
    return candidates[room];
  }
}
