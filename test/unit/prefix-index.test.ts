/**
 * The approximate prefix index inserts a long chain a slice per event-loop turn; every read sees
 * what one immediate insert would have left (same keys, same LRU order, so the same evictions).
 */
import { describe, expect, it } from 'vitest';
import { ApproxPrefixIndex, blockChain, type BlockKey } from '../../src/workers/policies/prefix-index.js';

/** The one-go LRU the index stands for: insert every key of the chain, then evict the oldest. */
class OneGo {
  readonly keys = new Map<string, Map<number, true>>();
  constructor(private readonly max: number) {}
  insert(w: string, chain: readonly BlockKey[]): void {
    let k = this.keys.get(w);
    if (!k) this.keys.set(w, (k = new Map()));
    for (const b of chain) {
      k.delete(b.key);
      k.set(b.key, true);
    }
    const it = k.keys();
    while (k.size > this.max) k.delete(it.next().value as number);
  }
  matched(w: string, chain: readonly BlockKey[]): number {
    let n = 0;
    for (const b of chain) {
      if (!this.keys.get(w)?.has(b.key)) break;
      n += b.tokens;
    }
    return n;
  }
}

const turn = () => new Promise((r) => setImmediate(r));

describe('approximate prefix index', () => {
  it('long chains inserted in slices route exactly as one insert would, read mid-drain or after', async () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    // Prompts sharing prefixes of various lengths, long enough for several slices, and a cap that
    // evicts constantly.
    const base = Array.from({ length: 100_000 }, () => rnd(150_000));
    const prompts = Array.from({ length: 30 }, (_, i) => {
      const cut = rnd(base.length);
      return [...base.slice(0, cut), ...Array.from({ length: 1000 + rnd(60_000) }, () => rnd(150_000)), i];
    });
    const chains = prompts.map((p) => blockChain(p));
    expect(Math.max(...chains.map((c) => c.length))).toBeGreaterThan(3 * 2048);
    const max = 9000;
    const sliced = new ApproxPrefixIndex(max);
    const ref = new OneGo(max);
    for (let i = 0; i < chains.length; i++) {
      const w = `w${i % 3}`;
      sliced.insert(w, chains[i]);
      ref.insert(w, chains[i]);
      // Sometimes read at once (the pending insert is applied first), sometimes a few turns later.
      for (let t = rnd(4); t > 0; t--) await turn();
      const probe = chains[rnd(chains.length)];
      for (const x of ['w0', 'w1', 'w2']) {
        expect(sliced.matchedTokens(x, probe)).toBe(ref.matched(x, probe));
        expect(sliced.size(x)).toBe(ref.keys.get(x)?.size ?? 0);
      }
    }
  });

  it('a long insert does not run in one turn', async () => {
    const index = new ApproxPrefixIndex();
    const chain = blockChain(Array.from({ length: 131_072 }, (_, i) => i));
    index.insert('w', chain);
    let turns = 0;
    const before = () => index['pending'].length > 0;
    while (before()) {
      await turn();
      turns++;
    }
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(index.matchedTokens('w', chain)).toBe(131_072);
  });
});
