/**
 * An approximate prefix tree over token ids, kept per worker.
 *
 * Instead of a node per token, a prompt is cut into 16-token blocks and each block is keyed by a
 * hash chained over everything before it, so a key stands for a whole prefix. 16 matches the
 * block size engines reuse in their prefix caches, so matching at finer granularity would claim
 * hits the engine cannot serve. The trailing partial block is keyed too, which keeps identical
 * short prompts sticky. Each worker keeps at most `maxBlocks` keys, least recently used evicted.
 */
import { laterTurn } from '../../util/fair-turn.js';

const BLOCK_TOKENS = 16;

export interface BlockKey {
  key: number;
  tokens: number;
}

/** Chained 52-bit keys (two FNV-1a lanes), safe as Map keys without BigInt. */
export function blockChain(tokenIds: readonly number[], blockTokens = BLOCK_TOKENS): BlockKey[] {
  const out: BlockKey[] = [];
  let hi = 0x811c9dc5;
  let lo = 0x01000193 ^ 0x9e3779b9;
  for (let start = 0; start < tokenIds.length; start += blockTokens) {
    const end = Math.min(start + blockTokens, tokenIds.length);
    for (let i = start; i < end; i++) {
      const t = tokenIds[i] >>> 0;
      hi = Math.imul(hi ^ t, 0x01000193);
      lo = Math.imul(lo ^ ((t * 2654435761) >>> 0), 0x01000193);
    }
    // Mix the block length in so a partial block never equals a full one with the same tokens.
    const h = Math.imul(hi ^ (end - start), 0x01000193);
    out.push({ key: (h & 0xfffff) * 0x100000000 + (lo >>> 0), tokens: end - start });
  }
  return out;
}

/**
 * Blocks inserted per event-loop turn (~0.2-0.4 ms). A 131k-token prompt is 8,192 blocks: inserted
 * (and as many evicted) at once they held the loop 1-5 ms, more on a busy box.
 */
const INSERT_BLOCKS_PER_TURN = 2048;

interface PendingInsert {
  workerId: string;
  chain: readonly BlockKey[];
  from: number;
}

export class ApproxPrefixIndex {
  private readonly perWorker = new Map<string, Map<number, true>>();
  /**
   * Inserts not applied yet, in order: a long chain goes in a slice per turn. Every read applies
   * what is left first, so each routing decision sees exactly the index an immediate insert would
   * have left (inserting a chain in slices, each followed by eviction, ends in the same keys and
   * order as one insert: the index is an LRU and each slice touches keys in chain order).
   */
  private pending: PendingInsert[] = [];
  private draining = false;

  constructor(private readonly maxBlocks = 1 << 16) {}

  /** Tokens of the longest cached prefix of `chain` on this worker. */
  matchedTokens(workerId: string, chain: readonly BlockKey[]): number {
    this.flush();
    const keys = this.perWorker.get(workerId);
    if (!keys) return 0;
    let matched = 0;
    for (const b of chain) {
      if (!keys.has(b.key)) break;
      matched += b.tokens;
    }
    return matched;
  }

  /** Records `chain` for the worker: short chains at once, long ones a slice per turn. */
  insert(workerId: string, chain: readonly BlockKey[]): void {
    if (this.pending.length === 0 && chain.length <= INSERT_BLOCKS_PER_TURN) {
      this.insertRange(workerId, chain, 0, chain.length);
      return;
    }
    this.pending.push({ workerId, chain, from: 0 });
    if (!this.draining) {
      this.draining = true;
      void laterTurn().then(this.drain);
    }
  }

  size(workerId: string): number {
    this.flush();
    return this.perWorker.get(workerId)?.size ?? 0;
  }

  removeWorker(workerId: string): void {
    this.flush();
    this.perWorker.delete(workerId);
  }

  private readonly drain = (): void => {
    this.draining = false;
    let budget = INSERT_BLOCKS_PER_TURN;
    while (budget > 0 && this.pending.length > 0) {
      const p = this.pending[0];
      const to = Math.min(p.chain.length, p.from + budget);
      this.insertRange(p.workerId, p.chain, p.from, to);
      budget -= to - p.from;
      p.from = to;
      if (p.from === p.chain.length) this.pending.shift();
    }
    if (this.pending.length > 0) {
      this.draining = true;
      void laterTurn().then(this.drain);
    }
  };

  /** Applies every pending insert now (before a read). */
  private flush(): void {
    while (this.pending.length > 0) {
      const p = this.pending.shift()!;
      this.insertRange(p.workerId, p.chain, p.from, p.chain.length);
    }
  }

  private insertRange(workerId: string, chain: readonly BlockKey[], from: number, to: number): void {
    let keys = this.perWorker.get(workerId);
    if (!keys) {
      keys = new Map();
      this.perWorker.set(workerId, keys);
    }
    for (let i = from; i < to; i++) {
      const key = chain[i].key;
      // Delete-then-set moves the key to the back of the Map's insertion order (LRU touch).
      keys.delete(key);
      keys.set(key, true);
    }
    if (keys.size <= this.maxBlocks) return;
    // One iterator for the whole eviction: a fresh `keys()` per evicted key walks past every entry
    // deleted before it until V8 compacts the table. With 2k-token prompts at ~100/s (a gateway
    // CPU profile) insert went from 6.1 % of the event loop to 1.2 %.
    const oldest = keys.keys();
    while (keys.size > this.maxBlocks) keys.delete(oldest.next().value as number);
  }
}
