/**
 * manual (SMG docs concepts/routing/load-balancing.md, sticky-sessions.md; smg-project/smg
 * model_gateway/src/policies/manual.rs): each `X-SMG-Routing-Key` value is pinned to a worker in an
 * explicit map. Adding workers never moves a key; a key moves only when its worker is unavailable.
 * Each key remembers up to two workers (a primary and a failover): when neither is available a new
 * one is picked by `--assignment-mode` and appended, dropping the oldest, so the key returns to its
 * earlier worker once that is back. Requests without a key are placed by the assignment mode and
 * not pinned. Keys idle longer than `--max-idle-secs` are forgotten (swept at most once a minute).
 *
 * Ours: `min_group` balances the keys pinned to each worker (SMG counts keys with requests in
 * flight, which the gateway does not track per key); the map is per model, as every policy here.
 */
import { defaultPolicyOptions, type PolicyOptions } from '../types.js';
import type { PolicyEnv, RoutableWorker, RoutingPolicy } from './policy.js';
import { NO_HINTS, type RoutingHints } from './routing-hints.js';

const MAX_CANDIDATES = 2;
const SWEEP_INTERVAL_MS = 60_000;

interface Pin {
  urls: string[];
  lastAccess: number;
}

export class ManualPolicy implements RoutingPolicy {
  readonly name = 'manual' as const;
  private readonly pins = new Map<string, Pin>();
  private lastSweep: number;
  private readonly now: () => number;

  private readonly options: PolicyOptions;

  constructor(private readonly env: PolicyEnv) {
    this.options = env.options ?? defaultPolicyOptions();
    this.now = env.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** Keys currently pinned (for tests and the log). */
  get size(): number {
    return this.pins.size;
  }

  select<W extends RoutableWorker>(candidates: readonly W[], _tokenIds: readonly number[], hints: RoutingHints = NO_HINTS): W {
    const now = this.now();
    this.sweep(now);
    const key = hints.manualKey;
    if (key === null) return this.assign(candidates);
    const pin = this.pins.get(key);
    if (pin) {
      pin.lastAccess = now;
      for (const url of pin.urls) {
        const w = candidates.find((c) => c.url === url);
        if (w) return w;
      }
      const w = this.assign(candidates);
      if (pin.urls.length >= MAX_CANDIDATES) pin.urls.shift();
      pin.urls.push(w.url);
      return w;
    }
    const w = this.assign(candidates);
    this.pins.set(key, { urls: [w.url], lastAccess: now });
    return w;
  }

  removeWorker(): void {
    // Pins keep removed URLs: a worker re-registered at the same URL gets its keys back.
  }

  private assign<W extends RoutableWorker>(candidates: readonly W[]): W {
    switch (this.options.assignmentMode) {
      case 'random':
        return candidates[Math.floor(this.env.random() * candidates.length) % candidates.length];
      case 'min_load':
        return this.minBy(candidates, (w) => w.loadScore());
      case 'min_group': {
        const keys = new Map<string, number>();
        for (const p of this.pins.values()) keys.set(p.urls[0], (keys.get(p.urls[0]) ?? 0) + 1);
        return this.minBy(candidates, (w) => keys.get(w.url) ?? 0);
      }
    }
  }

  /** Lowest value wins; ties are broken at random, as SMG does. */
  private minBy<W extends RoutableWorker>(candidates: readonly W[], value: (w: W) => number): W {
    let min = Infinity;
    const tied: W[] = [];
    for (const w of candidates) {
      const v = value(w);
      if (v < min) {
        min = v;
        tied.length = 0;
      }
      if (v === min) tied.push(w);
    }
    return tied[Math.floor(this.env.random() * tied.length) % tied.length];
  }

  private sweep(now: number): void {
    const maxIdleMs = this.options.maxIdleSecs * 1000;
    if (maxIdleMs <= 0 || now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    let evicted = 0;
    for (const [key, pin] of this.pins) {
      if (now - pin.lastAccess >= maxIdleMs) {
        this.pins.delete(key);
        evicted += 1;
      }
    }
    if (evicted > 0) {
      this.env.logger.info(`manual policy for model ${this.env.modelId}: evicted ${evicted} idle routing keys, ${this.pins.size} remain`);
    }
  }
}
