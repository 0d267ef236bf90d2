/**
 * Marker scanning shared by the streaming parsers: whether a literal stands at a position, how
 * much of a buffer's end could still grow into a marker (held back instead of emitted, so that a
 * marker split across deltas is still found), and the earliest of several markers. All of it
 * reads code units in place, without allocating.
 */

/** Outcome of matching a literal at a position: it is there, it is not, or the buffer ends inside it. */
export enum Match {
  Yes,
  No,
  Partial,
}

/** Whether `lit` occurs at `at` in `buf` (Partial when `buf` ends inside a prefix of it). */
export function matchAt(buf: string, at: number, lit: string): Match {
  const n = Math.min(lit.length, buf.length - at);
  for (let k = 0; k < n; k++) if (buf.charCodeAt(at + k) !== lit.charCodeAt(k)) return Match.No;
  return n === lit.length ? Match.Yes : Match.Partial;
}

/**
 * The earliest index ≥ `from` where the rest of `buf` is a proper prefix of one of `markers`
 * (`buf.length` if none). Only the last `maxLen - 1` characters are looked at.
 */
export function partialMarkerStart(buf: string, from: number, markers: readonly string[], maxLen: number): number {
  const n = buf.length;
  for (let i = Math.max(from, n - maxLen + 1); i < n; i++) {
    const c = buf.charCodeAt(i);
    for (const m of markers) {
      if (m.charCodeAt(0) !== c || m.length <= n - i) continue;
      if (matchAt(buf, i, m) === Match.Partial) return i;
    }
  }
  return n;
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `markers` (0 if none). */
export function heldSuffixLength(text: string, markers: readonly string[]): number {
  let maxLen = 0;
  for (const m of markers) if (m.length > maxLen) maxLen = m.length;
  return text.length - partialMarkerStart(text, 0, markers, maxLen);
}

/** The earliest occurrence of any marker at or after `from`: [index, marker], or null (ties: the longer marker). */
export function findFirst(text: string, markers: readonly string[], from = 0): [number, string] | null {
  let at = -1;
  let which = '';
  for (const m of markers) {
    const i = text.indexOf(m, from);
    if (i !== -1 && (at === -1 || i < at || (i === at && m.length > which.length))) {
      at = i;
      which = m;
    }
  }
  return at === -1 ? null : [at, which];
}
