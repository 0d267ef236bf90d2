/**
 * Marker scanning shared by the streaming parsers: how much of a buffer's end could still grow into
 * a marker, so that text is held back instead of emitted (and a marker split across deltas is
 * still found).
 */

/**
 * Length of the longest suffix of `text` that is a proper prefix of one of `markers` (0 if none).
 * Only the last `max(marker length) - 1` characters are looked at, so this is O(marker length).
 */
export function heldSuffixLength(text: string, markers: readonly string[]): number {
  let best = 0;
  for (const m of markers) {
    const limit = Math.min(m.length - 1, text.length);
    for (let len = limit; len > best; len--) {
      if (text.endsWith(m.slice(0, len))) {
        best = len;
        break;
      }
    }
  }
  return best;
}

/** The earliest occurrence of any marker at or after `from`: [index, marker], or null. */
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
