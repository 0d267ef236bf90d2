/**
 * The request ids an engine client has in flight, findable from their wire bytes. Every engine
 * step names each running request by its id; decoding those bytes into a fresh string per token
 * was the single biggest cost of reading outputs. Looking the bytes up here returns the id string
 * the gateway already holds: two native reads for a hash, a Map lookup and a memcmp.
 */

interface Entry {
  bytes: Buffer;
  id: string;
}

const isAscii = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
};

/** A hash of the id's length and last 4 bytes (the random tail of a UUID-suffixed id). */
function keyOf(buf: Buffer, start: number, len: number): number {
  return len >= 4 ? (buf.readUInt32LE(start + len - 4) ^ Math.imul(len, 0x9e3779b1)) >>> 0 : len;
}

export class IdTable {
  private readonly byKey = new Map<number, Entry[]>();

  add(id: string): void {
    // Non-ASCII ids (a client's own `rid`) take the ordinary decode path.
    if (!isAscii(id)) return;
    const bytes = Buffer.from(id, 'latin1');
    const key = keyOf(bytes, 0, bytes.length);
    const list = this.byKey.get(key);
    if (list) list.push({ bytes, id });
    else this.byKey.set(key, [{ bytes, id }]);
  }

  delete(id: string): void {
    if (!isAscii(id)) return;
    const bytes = Buffer.from(id, 'latin1');
    const key = keyOf(bytes, 0, bytes.length);
    const list = this.byKey.get(key);
    if (!list) return;
    const i = list.findIndex((e) => e.id === id);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }

  /** The in-flight id whose bytes are `buf[start, start + len)`, or undefined. */
  find(buf: Buffer, start: number, len: number): string | undefined {
    const list = this.byKey.get(keyOf(buf, start, len));
    if (!list) return undefined;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (e.bytes.length === len && sameBytes(e.bytes, buf, start, len)) return e.id;
    }
    return undefined;
  }
}

/**
 * `a` equals `buf[start, start + len)` (a.length === len). A plain loop: ids are tens of bytes, and
 * Buffer#compare's argument checks and native call cost more than the comparison itself (find's
 * self time was 4 % of the loop at 1,000 paced streams, issue 30).
 */
function sameBytes(a: Buffer, buf: Buffer, start: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[i] !== buf[start + i]) return false;
  return true;
}
