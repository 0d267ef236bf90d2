/**
 * Hand-written for speed (see encoder.ts): the BPE merge table, (left id, right id) → (rank,
 * merged id), as open addressing in one Int32Array. A Map keyed by the pair would need a string or
 * a non-Smi number per lookup; this probes integers only and holds 446k merges (gpt-oss) in 16 MB.
 */

const EMPTY = -1;

export class PairTable {
  /** Slots of 4: left, right, rank, merged id; left = EMPTY marks a free slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  size = 0;

  constructor(capacity: number) {
    let n = 16;
    while (n < capacity * 1.5) n *= 2;
    this.mask = n - 1;
    this.slots = new Int32Array(n * 4).fill(EMPTY);
  }

  private home(left: number, right: number): number {
    let h = Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    return h & this.mask;
  }

  /** Adds or replaces a pair: a merge listed twice keeps its later rank, as in Rust and the JS library. */
  set(left: number, right: number, rank: number, merged: number): void {
    const s = this.slots;
    for (let i = this.home(left, right); ; i = (i + 1) & this.mask) {
      const at = i * 4;
      if (s[at] === EMPTY) {
        s[at] = left;
        s[at + 1] = right;
        s[at + 2] = rank;
        s[at + 3] = merged;
        this.size++;
        return;
      }
      if (s[at] === left && s[at + 1] === right) {
        s[at + 2] = rank;
        s[at + 3] = merged;
        return;
      }
    }
  }

  /** Slot offset of the pair (read `rank(at)` / `merged(at)`), or -1 when the pair never merges. */
  find(left: number, right: number): number {
    const s = this.slots;
    for (let i = this.home(left, right); ; i = (i + 1) & this.mask) {
      const at = i * 4;
      const l = s[at];
      if (l === left && s[at + 1] === right) return at;
      if (l === EMPTY) return -1;
    }
  }

  rank(at: number): number {
    return this.slots[at + 2];
  }

  merged(at: number): number {
    return this.slots[at + 3];
  }
}
