/**
 * The scanner under every marker-based reasoning parser: it cuts a stream of text deltas into
 * plain text and whole markers, and hands both to a small state machine (the parser) that decides
 * which field text goes to and which markers it watches next.
 *
 * Why a scanner: the result must not depend on how the text was split into deltas. The scanner
 * finds the earliest watched marker (the longest one on a tie), exactly as a scan over the whole
 * text would, and holds back only a tail that could still grow into a marker. Everything before
 * that tail is released at once, so the held text never exceeds the longest marker and the 4 MiB
 * buffer limit (PARSER_BUFFER_LIMIT) can never be reached by the scanner itself. A non-streaming
 * parse is the same machine fed the whole text in one push, so both paths agree by construction.
 */
import { findFirst } from '../markers.js';
import type { ParsedItem, StreamingParser } from '../types.js';

export type ReasoningField = 'text' | 'reasoning';

/** The markers one parser state watches, with what the scanner needs precomputed. */
export class MarkerSet {
  readonly markers: readonly string[];
  /** Distinct first characters: a delta holding none of them can neither complete nor start a marker. */
  private readonly firstChars: readonly string[];
  private readonly maxLength: number;
  /**
   * Some marker contains another one (`<a>` inside `x<a>`): a complete short match may still turn
   * out to be part of a longer one, so a hit must wait until no earlier partial marker is open.
   */
  private readonly overlapping: boolean;

  constructor(markers: readonly string[]) {
    this.markers = markers.filter((m) => m.length > 0);
    this.firstChars = [...new Set(this.markers.map((m) => m[0]))];
    this.maxLength = Math.max(0, ...this.markers.map((m) => m.length));
    this.overlapping = this.markers.some((a) => this.markers.some((b) => a !== b && b.includes(a)));
  }

  get empty(): boolean {
    return this.markers.length === 0;
  }

  /** Whether `text` contains a first character of any marker (the per-token fast-path test). */
  touches(text: string): boolean {
    for (const c of this.firstChars) if (text.indexOf(c) !== -1) return true;
    return false;
  }

  /**
   * The earliest position p >= from where s[p..] is a proper prefix of a marker (text that could
   * still become a marker), or -1. Looks only at the last maxLength - 1 characters; allocation-free.
   */
  partialStart(s: string, from: number): number {
    const n = s.length;
    for (let p = Math.max(from, n - this.maxLength + 1); p < n; p++) {
      const rest = n - p;
      for (const m of this.markers) {
        if (m.length <= rest) continue;
        let k = 0;
        while (k < rest && s.charCodeAt(p + k) === m.charCodeAt(k)) k++;
        if (k === rest) return p;
      }
    }
    return -1;
  }

  /** Whether a complete hit at `at` must wait: an earlier or same-place partial marker is still open. */
  mustWait(s: string, from: number, at: number): boolean {
    if (!this.overlapping) return false;
    const p = this.partialStart(s, from);
    return p !== -1 && p <= at;
  }
}

/** Append text to `out`, merging with the previous item when it has the same field. */
export function emit(out: ParsedItem[], kind: ReasoningField, text: string): void {
  if (text.length === 0) return;
  const last = out.length > 0 ? out[out.length - 1] : undefined;
  if (last !== undefined && last.kind === kind) last.text += text;
  else out.push({ kind, text });
}

/**
 * Base of the marker parsers. Subclasses keep their state, set `watched` whenever it changes, and
 * route text and markers in `onText` / `onMarker`.
 */
export abstract class MarkerStreamParser implements StreamingParser {
  /** A tail that could still grow into a marker (always shorter than the longest marker). */
  private held = '';
  /**
   * A marker recognised only as the very first thing in the output, or null. Used when the prompt
   * already opened the block (think-in-prefill) and the model may or may not repeat the marker.
   */
  private leading: string | null;

  protected constructor(
    protected watched: MarkerSet,
    leading: string | null,
  ) {
    this.leading = leading !== null && leading.length > 0 ? leading : null;
  }

  /** Text between markers, in order. */
  protected abstract onText(text: string, out: ParsedItem[]): void;
  /** A whole watched marker (or the leading marker). May change `watched`. */
  protected abstract onMarker(marker: string, out: ParsedItem[]): void;

  push(delta: string): ParsedItem[] {
    const out: ParsedItem[] = [];
    if (delta.length === 0) return out;
    // The per-token path: nothing held, no marker character in sight.
    if (this.held.length === 0 && this.leading === null && !this.watched.touches(delta)) {
      this.onText(delta, out);
      return out;
    }
    const s = this.held.length === 0 ? delta : this.held + delta;
    this.held = '';
    this.scan(s, false, out);
    return out;
  }

  finish(): ParsedItem[] {
    const out: ParsedItem[] = [];
    const s = this.held;
    this.held = '';
    // A partial marker at the end of the stream is ordinary text of the current field.
    if (s.length > 0) this.scan(s, true, out);
    this.leading = null;
    return out;
  }

  private scan(s: string, final: boolean, out: ParsedItem[]): void {
    let from = 0;
    if (this.leading !== null) {
      const lead = this.leading;
      if (s.startsWith(lead)) {
        this.leading = null;
        this.onMarker(lead, out);
        from = lead.length;
      } else if (!final && lead.startsWith(s)) {
        this.held = s;
        return;
      } else {
        this.leading = null;
      }
    }
    while (from < s.length) {
      const set = this.watched;
      if (set.empty) {
        this.onText(from === 0 ? s : s.slice(from), out);
        return;
      }
      const hit = findFirst(s, set.markers, from);
      if (hit !== null && (final || !set.mustWait(s, from, hit[0]))) {
        const [at, marker] = hit;
        if (at > from) this.onText(s.slice(from, at), out);
        from = at + marker.length;
        this.onMarker(marker, out);
        continue;
      }
      // No marker to take yet: release everything that cannot still grow into one.
      const p = final ? -1 : set.partialStart(s, from);
      const decidedEnd = p === -1 ? s.length : p;
      if (decidedEnd > from) this.onText(from === 0 && decidedEnd === s.length ? s : s.slice(from, decidedEnd), out);
      if (decidedEnd < s.length) this.held = s.slice(decidedEnd);
      return;
    }
  }
}

/** Non-streaming parse: the streaming machine fed the whole text at once, then finished. */
export function parseWhole(parser: StreamingParser, text: string): ParsedItem[] {
  const out = parser.push(text);
  for (const it of parser.finish()) {
    if (it.kind === 'text' || it.kind === 'reasoning') emit(out, it.kind, it.text);
    else out.push(it);
  }
  return out;
}
