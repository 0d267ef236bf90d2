/**
 * prefix_hash (SMG docs concepts/routing/load-balancing.md, reference/configuration.md;
 * smg-project/smg model_gateway/src/policies/prefix_hash.rs): the first `--prefix-token-count`
 * prompt tokens are hashed onto a consistent-hash ring, so prompts sharing that head land on one
 * worker. `X-SMG-Routing-Key`, when sent, is hashed instead of the tokens. A ring target whose load
 * exceeds both `--prefix-hash-load-factor` × the mean load and the mean + 10 is passed over for the
 * least-loaded worker within those bounds (the ring target when none is). No tokens and no key:
 * the least-loaded worker.
 */
import { RingCache, ringPosition } from './hash-ring.js';
import { defaultPolicyOptions, type PolicyOptions } from '../types.js';
import { leastLoaded, type PolicyEnv, type RoutableWorker, type RoutingPolicy } from './policy.js';
import { NO_HINTS, type RoutingHints } from './routing-hints.js';

/** SMG's absolute margin over the mean before a ring target counts as overloaded. */
const BALANCE_ABS_THRESHOLD = 10;

export class PrefixHashPolicy implements RoutingPolicy {
  readonly name = 'prefix_hash' as const;
  private readonly rings = new RingCache();
  private readonly options: PolicyOptions;

  constructor(env: PolicyEnv) {
    this.options = env.options ?? defaultPolicyOptions();
  }

  select<W extends RoutableWorker>(candidates: readonly W[], tokenIds: readonly number[], hints: RoutingHints = NO_HINTS): W {
    const key = hints.routingKey !== null ? hints.routingKey : this.tokenKey(tokenIds);
    if (key === null) return leastLoaded(candidates);
    if (candidates.length === 1) return candidates[0];
    const target = candidates[this.rings.for(candidates.map((w) => w.url)).ownerOf(ringPosition(key))];

    const loads = candidates.map((w) => w.loadScore());
    const total = loads.reduce((a, b) => a + b, 0);
    if (total === 0) return target;
    // +1: the request being placed.
    const mean = (total + 1) / candidates.length;
    const bound = Math.max(mean * this.options.prefixHashLoadFactor, mean + BALANCE_ABS_THRESHOLD);
    if (target.loadScore() <= bound) return target;
    let best = -1;
    for (let i = 0; i < candidates.length; i++) {
      if (loads[i] <= bound && (best < 0 || loads[i] < loads[best])) best = i;
    }
    return best < 0 ? target : candidates[best];
  }

  /** The hashed prefix: token ids as little-endian u32, as SMG hashes them. */
  private tokenKey(tokenIds: readonly number[]): Uint8Array | null {
    if (tokenIds.length === 0) return null;
    const n = Math.min(tokenIds.length, Math.max(1, this.options.prefixTokenCount));
    const bytes = new Uint8Array(n * 4);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < n; i++) view.setUint32(i * 4, tokenIds[i] >>> 0, true);
    return bytes;
  }
}
