/**
 * Finding the earliest of several start markers in a buffer that grows at its end and loses text
 * at its front, without searching text again: for each marker it remembers where it occurs next,
 * or that it does not occur in what was searched. A plain `indexOf` per marker per call would
 * rescan the rest of the buffer for every candidate in a long non-streamed text (quadratic when
 * one marker is common and another absent). One finder serves one buffer: each parser makes its
 * own (ToolStreamParser.markerSet), and the parser shifts them all when it drops text.
 */
import { partialMarkerStart } from '../markers.js';

const UNKNOWN = -2;
const NONE = -1;

export class MarkerFinder {
  /** The longest marker's length. */
  readonly maxLen: number;
  private readonly next: number[];
  /** Buffer length the NONE entries cover. */
  private searched = 0;
  private lastFrom = 0;

  constructor(readonly markers: readonly string[]) {
    this.next = markers.map(() => UNKNOWN);
    this.maxLen = Math.max(...markers.map((m) => m.length));
  }

  /** Where a proper prefix of a marker that ends `buf` starts (≥ `from`; `buf.length` if none): text from there is held. */
  partialStart(buf: string, from: number): number {
    return partialMarkerStart(buf, from, this.markers, this.maxLen);
  }

  /** The earliest occurrence at or after `from` (ties: the longer marker), or [-1, '']. */
  find(buf: string, from: number): [number, string] {
    if (from < this.lastFrom) this.next.fill(UNKNOWN);
    this.lastFrom = from;
    let at = -1;
    let which = '';
    for (let k = 0; k < this.markers.length; k++) {
      const m = this.markers[k];
      let i = this.next[k];
      if (i === NONE) i = buf.indexOf(m, Math.max(from, this.searched - m.length + 1));
      else if (i < from) i = buf.indexOf(m, from);
      this.next[k] = i === -1 ? NONE : i;
      if (i !== -1 && (at === -1 || i < at || (i === at && m.length > which.length))) {
        at = i;
        which = m;
      }
    }
    this.searched = buf.length;
    return [at, which];
  }

  /** The buffer lost its first `n` characters. */
  shift(n: number): void {
    if (n === 0) return;
    for (let k = 0; k < this.next.length; k++) {
      const i = this.next[k];
      if (i >= 0) this.next[k] = i >= n ? i - n : UNKNOWN;
    }
    this.searched = Math.max(0, this.searched - n);
    this.lastFrom = Math.max(0, this.lastFrom - n);
  }

  /** The buffer was replaced. */
  reset(): void {
    this.next.fill(UNKNOWN);
    this.searched = 0;
    this.lastFrom = 0;
  }
}
