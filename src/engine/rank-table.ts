/**
 * Which data-parallel rank gets the next request (smg-newest §1.6). Selection and reservation
 * happen in one synchronous call, so a burst that arrives between two load reports spreads over
 * the ranks instead of piling onto the one that looked idlest.
 */
import { EngineError, type RankState } from './client-types.js';
import type { EngineLoad } from './types.js';

interface Slot {
  rank: number;
  inFlight: Set<string>;
  /** Reported by the engine; selection never changes it, only idle reset clears the counts. */
  load: EngineLoad | null;
  prefixQueries: number;
  prefixHits: number;
}

/** The score SMG minimises; exported for tests and /workers. */
export function rankScore(inFlight: number, load: EngineLoad | null): number {
  const running = load?.numRunning ?? 0;
  const waiting = load?.numWaiting ?? 0;
  let score = Math.max(inFlight, running + waiting);
  // A queue on a nearly full KV cache means preemption ahead: weigh it more than its length.
  if (waiting > 0) score += waiting * 6 * Math.max(0, (load?.kvCacheUsage ?? 0) - 0.5);
  return score;
}

export class RankTable {
  private readonly slots: Slot[];
  private readonly byRank = new Map<number, Slot>();
  private readonly holder = new Map<string, Slot>();
  private scanStart = 0;

  /** `ranks` in scan order (identity order of the connected engines). */
  constructor(ranks: readonly number[]) {
    this.slots = ranks.map((rank) => ({ rank, inFlight: new Set<string>(), load: null, prefixQueries: 0, prefixHits: 0 }));
    for (const s of this.slots) this.byRank.set(s.rank, s);
  }

  /**
   * Picks a rank for `id` and records it as in flight there. A pinned rank bypasses scoring.
   * Rotating the scan start makes equal scores take turns; only a strictly smaller score wins.
   */
  reserve(id: string, pinned: number | null = null): number {
    let chosen: Slot | undefined;
    if (pinned !== null) {
      chosen = this.byRank.get(pinned);
      if (!chosen) {
        throw new EngineError(
          'invalid',
          `data parallel rank ${pinned} is out of range for ${this.slots.length} engine(s)`,
        );
      }
    } else {
      const n = this.slots.length;
      if (n === 0) throw new EngineError('closed', 'engine ZMQ client is closed: no engines connected');
      const start = this.scanStart;
      this.scanStart = (start + 1) % n;
      let best = Infinity;
      for (let k = 0; k < n; k++) {
        const slot = this.slots[(start + k) % n];
        const score = rankScore(slot.inFlight.size, slot.load);
        if (score < best) {
          best = score;
          chosen = slot;
        }
      }
    }
    const slot = chosen as Slot;
    slot.inFlight.add(id);
    this.holder.set(id, slot);
    return slot.rank;
  }

  /** The rank holding `id`, if it is in flight. */
  holderOf(id: string): number | null {
    return this.holder.get(id)?.rank ?? null;
  }

  /**
   * Ends `id`'s reservation; a second call is a no-op (returns null). When a rank empties, its
   * stored running/waiting counts are zeroed: engines report load only inside output batches, and
   * a terminal batch's snapshot still counts the request it finishes. kv usage is kept.
   */
  release(id: string): number | null {
    const slot = this.holder.get(id);
    if (!slot) return null;
    this.holder.delete(id);
    slot.inFlight.delete(id);
    if (slot.inFlight.size === 0 && slot.load) {
      // The decoder's shape (prefix counters declared): rankScore sees one kind of load object.
      slot.load = { numRunning: 0, numWaiting: 0, kvCacheUsage: slot.load.kvCacheUsage, prefixQueries: undefined, prefixHits: undefined };
    }
    return slot.rank;
  }

  /**
   * Overwrites a rank's reported load; call before releasing that batch's finishes. The object is
   * kept as given (the dialect decodes a fresh one per batch): the table never mutates a stored
   * load (`release` replaces it) and `states()` hands out copies.
   */
  storeLoad(rank: number, load: EngineLoad): void {
    const slot = this.byRank.get(rank);
    if (!slot) return;
    slot.load = load;
    // Per-step counters add up here, so a scrape sees totals without a hook per engine message.
    if (load.prefixQueries) slot.prefixQueries += load.prefixQueries;
    if (load.prefixHits) slot.prefixHits += load.prefixHits;
  }

  inFlightCount(): number {
    return this.holder.size;
  }

  states(): RankState[] {
    return this.slots.map((s) => ({
      rank: s.rank,
      inFlight: s.inFlight.size,
      load: s.load ? { ...s.load } : null,
      prefixQueries: s.prefixQueries,
      prefixHits: s.prefixHits,
    }));
  }

  /** Client death: every reservation goes; reported loads stay for display. */
  clear(): void {
    this.holder.clear();
    for (const s of this.slots) s.inFlight.clear();
  }
}
