/**
 * Finding the earliest of several markers in a buffer that grows at its end and loses text at
 * its front, without searching text again: for each marker it remembers where it occurs next,
 * or that it does not occur in what was searched. A plain `indexOf` per marker per call would
 * rescan the rest of the buffer for every candidate in a long non-streamed text (quadratic when
 * one marker is common and another absent). One finder serves one buffer: each parser makes its
 * own (ToolStreamParser.markerSet), and the parser shifts them all when it drops text.
 *
 * What depends only on the marker list (longest length, first characters) is computed once per
 * list, so a parser's finders cost one small array each to create.
 */
import { Match as MatchEnum, matchAt as matchAtImport } from '../markers.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const matchAt = matchAtImport;
const PARTIAL = MatchEnum.Partial;

const UNKNOWN = -2;
const NONE = -1;

interface MarkerInfo {
  readonly maxLen: number;
  /** The markers' first code units, when they all share one (the common case: `<`), else -1. */
  readonly first: number;
  readonly firsts: ReadonlySet<number>;
}

const infos = new WeakMap<readonly string[], MarkerInfo>();

function infoOf(markers: readonly string[]): MarkerInfo {
  let info = infos.get(markers);
  if (info === undefined) {
    let maxLen = 0;
    const firsts = new Set<number>();
    for (const m of markers) {
      if (m.length > maxLen) maxLen = m.length;
      firsts.add(m.charCodeAt(0));
    }
    info = { maxLen, first: firsts.size === 1 ? markers[0].charCodeAt(0) : -1, firsts };
    infos.set(markers, info);
  }
  return info;
}

export class MarkerFinder {
  /** The longest marker's length. */
  readonly maxLen: number;
  /** The marker `locate` found ('' when none). */
  located = '';
  private readonly info: MarkerInfo;
  private readonly next: number[];
  /** Buffer length the NONE entries cover. */
  private searched = 0;
  private lastFrom = 0;

  constructor(readonly markers: readonly string[]) {
    this.info = infoOf(markers);
    this.maxLen = this.info.maxLen;
    this.next = new Array<number>(markers.length).fill(UNKNOWN);
  }

  /**
   * Where a proper prefix of a marker that ends `buf` starts (≥ `from`; `buf.length` if none):
   * text from there is held. Only the last `maxLen - 1` characters are looked at.
   */
  partialStart(buf: string, from: number): number {
    const n = buf.length;
    const { first, firsts } = this.info;
    for (let i = Math.max(from, n - this.maxLen + 1); i < n; i++) {
      const c = buf.charCodeAt(i);
      if (first >= 0 ? c !== first : !firsts.has(c)) continue;
      for (const m of this.markers) {
        if (m.charCodeAt(0) === c && m.length > n - i && matchAt(buf, i, m) === PARTIAL) return i;
      }
    }
    return n;
  }

  /** The earliest occurrence at or after `from` (ties: the longer marker), or [-1, '']. */
  find(buf: string, from: number): [number, string] {
    const at = this.locate(buf, from);
    return [at, this.located];
  }

  /** `find` without the pair: the index (or -1), the marker in `located`. */
  locate(buf: string, from: number): number {
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
    this.located = which;
    return at;
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
