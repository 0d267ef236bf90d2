/**
 * A least-recently-used map bounded by entry count and by total size in bytes: a put or a get
 * makes an entry the newest; when either bound is passed the oldest entries go. Sizes are given
 * by the caller (the JSON byte length of a record), so the bound holds for what is really kept.
 */
export class Lru<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
    /** Called for every entry pushed out by the bounds (not for explicit deletes). */
    private readonly onEvict: (key: string, value: V) => void = () => {},
  ) {}

  get size(): number {
    return this.map.size;
  }

  get bytes(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** Without touching recency. */
  peek(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    this.map.set(key, { value, bytes });
    this.total += bytes;
    this.evict(key);
  }

  delete(key: string): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    this.total -= e.bytes;
    return true;
  }

  /** Oldest first, until both bounds hold; `keep` (the entry just written) goes last of all. */
  private evict(keep: string): void {
    for (const [key, e] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxBytes) return;
      if (key === keep && this.map.size > 1) continue;
      this.map.delete(key);
      this.total -= e.bytes;
      this.onEvict(key, e.value);
    }
  }
}
