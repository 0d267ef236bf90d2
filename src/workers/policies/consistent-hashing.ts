/**
 * consistent_hashing (SMG docs concepts/routing/load-balancing.md; smg-project/smg
 * model_gateway/src/policies/consistent_hashing.rs): session affinity by header, no load awareness.
 * Order: `X-SMG-Target-Worker` (0-based index into the available workers; a bad or out-of-range
 * index refuses the request) → `X-SMG-Routing-Key` on the hash ring → the implicit keys
 * (`Authorization`, `X-Forwarded-For`, `Cookie`) on the ring → a random worker.
 */
import { RingCache, ringPosition } from './hash-ring.js';
import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';
import { NO_HINTS, RoutingError, type RoutingHints } from './routing-hints.js';

export class ConsistentHashingPolicy implements RoutingPolicy {
  readonly name = 'consistent_hashing' as const;
  private readonly rings = new RingCache();

  constructor(private readonly env: PolicyEnv) {}

  select<W extends RoutableWorker>(candidates: readonly W[], _tokenIds: readonly number[], hints: RoutingHints = NO_HINTS): W {
    if (hints.targetWorker !== null) {
      const idx = /^\d+$/.test(hints.targetWorker) ? Number(hints.targetWorker) : NaN;
      if (Number.isSafeInteger(idx) && idx < candidates.length) return candidates[idx];
      throw new RoutingError(
        `X-SMG-Target-Worker '${hints.targetWorker}' names no available worker for model ${this.env.modelId} (${candidates.length} available, indexed from 0)`,
      );
    }
    const key = hints.routingKey ?? hints.implicitKey;
    if (key !== null) {
      const ring = this.rings.for(candidates.map((w) => w.url));
      return candidates[ring.ownerOf(ringPosition(key))];
    }
    return candidates[Math.floor(this.env.random() * candidates.length) % candidates.length];
  }
}
