/**
 * The request ids an engine client has in flight, findable from their wire bytes. Every engine
 * step names each running request by its id; decoding those bytes into a fresh string per token
 * was the single biggest cost of reading outputs. Looking the bytes up here returns the id string
 * the gateway already holds: a hash of the last bytes, a Map lookup and a byte-by-byte compare.
 */

const isAscii = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
};

/** A hash of the id's length and last 4 bytes (the random tail of a UUID-suffixed id). */
function keyOf(buf: Buffer, start: number, len: number): number {
  return len >= 4 ? (buf.readUInt32LE(start + len - 4) ^ Math.imul(len, 0x9e3779b1)) >>> 0 : len;
}

/** keyOf for an ASCII id string (its bytes are its char codes). */
function keyOfString(id: string): number {
  const len = id.length;
  if (len < 4) return len;
  const last4 = (id.charCodeAt(len - 4) | (id.charCodeAt(len - 3) << 8) | (id.charCodeAt(len - 2) << 16) | (id.charCodeAt(len - 1) << 24)) >>> 0;
  return (last4 ^ Math.imul(len, 0x9e3779b1)) >>> 0;
}

/**
 * `id` (ASCII) equals `buf[start, start + len)`. Compared against the string itself: no copy of
 * the id's bytes is kept per request (a Buffer and an entry object each, before issue 30), and a
 * plain loop over tens of bytes is cheaper than Buffer#compare's checks and native call.
 */
function sameBytes(id: string, buf: Buffer, start: number, len: number): boolean {
  if (id.length !== len) return false;
  for (let i = 0; i < len; i++) if (id.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}

export class IdTable {
  /** Hash → the id, or the ids sharing that hash. */
  private readonly byKey = new Map<number, string | string[]>();

  add(id: string): void {
    // Non-ASCII ids (a client's own `rid`) take the ordinary decode path.
    if (!isAscii(id)) return;
    const key = keyOfString(id);
    const had = this.byKey.get(key);
    if (had === undefined) this.byKey.set(key, id);
    else if (typeof had === 'string') this.byKey.set(key, [had, id]);
    else had.push(id);
  }

  delete(id: string): void {
    if (!isAscii(id)) return;
    const key = keyOfString(id);
    const had = this.byKey.get(key);
    if (had === undefined) return;
    if (typeof had === 'string') {
      if (had === id) this.byKey.delete(key);
      return;
    }
    const i = had.indexOf(id);
    if (i >= 0) had.splice(i, 1);
    if (had.length === 1) this.byKey.set(key, had[0]);
    else if (had.length === 0) this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }

  /** The in-flight id whose bytes are `buf[start, start + len)`, or undefined. */
  find(buf: Buffer, start: number, len: number): string | undefined {
    const had = this.byKey.get(keyOf(buf, start, len));
    if (had === undefined) return undefined;
    if (typeof had === 'string') return sameBytes(had, buf, start, len) ? had : undefined;
    for (let i = 0; i < had.length; i++) if (sameBytes(had[i], buf, start, len)) return had[i];
    return undefined;
  }
}
