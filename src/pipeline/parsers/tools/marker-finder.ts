/**
 * Finding the earliest of several markers in a buffer that grows at its end and loses text at
 * its front, without searching text again: for each marker it remembers where it occurs next,
 * or that it does not occur in what was searched. A plain `indexOf` per marker per call would
 * rescan the rest of the buffer for every candidate in a long non-streamed text (quadratic when
 * one marker is common and another absent). One finder serves one buffer: each parser makes its
 * own (ToolStreamParser.markerSet). Positions are remembered as absolute text offsets (the caller
 * passes how much the buffer has lost at its front), so dropping text costs the finders nothing.
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
  /** Absolute offset of each marker's next occurrence, or NONE / UNKNOWN. */
  private readonly next: number[];
  /** Absolute end of the text the NONE entries cover. */
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

  /**
   * The earliest occurrence at or after `from` (ties: the longer marker), or [-1, ''].
   * `dropped`: how many characters the buffer has lost at its front so far.
   */
  find(buf: string, from: number, dropped = 0): [number, string] {
    const at = this.locate(buf, from, dropped);
    return [at, this.located];
  }

  /** `find` without the pair: the index (or -1), the marker in `located`. */
  locate(buf: string, from: number, dropped = 0): number {
    const absFrom = dropped + from;
    if (absFrom < this.lastFrom) this.next.fill(UNKNOWN);
    this.lastFrom = absFrom;
    let at = -1;
    let which = '';
    for (let k = 0; k < this.markers.length; k++) {
      const m = this.markers[k];
      let i = this.next[k];
      if (i === NONE) {
        i = buf.indexOf(m, Math.max(from, this.searched - dropped - m.length + 1));
        if (i !== -1) i += dropped;
      } else if (i < absFrom) {
        i = buf.indexOf(m, from);
        if (i !== -1) i += dropped;
      }
      this.next[k] = i === -1 ? NONE : i;
      if (i !== -1 && (at === -1 || i < at || (i === at && m.length > which.length))) {
        at = i;
        which = m;
      }
    }
    this.searched = dropped + buf.length;
    this.located = which;
    return at === -1 ? -1 : at - dropped;
  }
}
