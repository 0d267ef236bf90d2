/**
 * A consistent-hash ring over worker URLs, 150 virtual nodes each, as SMG's
 * (smg-project/smg model_gateway/src/worker/hash_ring.rs): a key goes to the first worker at or
 * after its position, clockwise, so adding or removing a worker moves only ~1/N of the keys.
 * SMG hashes with blake3, which Node does not ship; positions here are the first 48 bits of
 * SHA-256 — placement differs from SMG's, the properties do not.
 */
import { createHash } from 'node:crypto';

const VIRTUAL_NODES = 150;

export function ringPosition(text: string | Uint8Array): number {
  return createHash('sha256').update(text).digest().readUIntBE(0, 6);
}

export class HashRing {
  /** Sorted ring positions and, at the same index, the owning URL's index. */
  private readonly positions: number[];
  private readonly owners: number[];

  constructor(readonly urls: readonly string[]) {
    const nodes: [number, number][] = [];
    urls.forEach((url, i) => {
      for (let v = 0; v < VIRTUAL_NODES; v++) nodes.push([ringPosition(`${url}#${v}`), i]);
    });
    nodes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.positions = nodes.map((n) => n[0]);
    this.owners = nodes.map((n) => n[1]);
  }

  /** Index into `urls` of the worker owning `position`; -1 on an empty ring. */
  ownerOf(position: number): number {
    const n = this.positions.length;
    if (n === 0) return -1;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.positions[mid] < position) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo % n];
  }
}

/** One ring per set of candidate URLs; rebuilt only when the set changes. */
export class RingCache {
  private key = '';
  private ring = new HashRing([]);

  for(urls: readonly string[]): HashRing {
    const key = urls.join('\n');
    if (key !== this.key) {
      this.key = key;
      this.ring = new HashRing(urls);
    }
    return this.ring;
  }
}
