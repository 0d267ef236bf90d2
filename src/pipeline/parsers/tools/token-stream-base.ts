/**
 * The common skeleton of the token-format tool parsers: one streaming state machine per format,
 * and the non-streaming `parse()` is that same machine fed the whole text at once. Both paths
 * therefore agree by construction; the tests check it over every split.
 *
 * A subclass keeps its undecided input in `buf` and implements `step()`, which consumes some of
 * it and returns false when it needs more input. Items are merged as they are produced (adjacent
 * text pieces, adjacent argument pieces of the same call), so a delta yields few items.
 */
import type { ParsedItem, StreamingParser } from '../types.js';
import { findFirst, heldSuffixLength } from '../markers.js';
import type { ToolSchema } from './types.js';

/** Longest header (call name, attributes) a parser waits for before deciding it is not a call. */
export const HEADER_LIMIT = 1024;

/**
 * A fixed set of markers to look for in a buffer: the earliest occurrence, and how much of the
 * buffer's end could still grow into one (held back instead of emitted). The hold check exits
 * early when none of the markers' first characters occurs near the end, which is the common
 * per-token case in plain text.
 */
export class MarkerSet {
  readonly maxLen: number;
  private readonly firsts: ReadonlySet<number>;
  /** The common first character of all markers, or '' when they differ. */
  private readonly lead: string;
  /** Markers longest first, so that at one position the longest match wins. */
  private readonly byLength: readonly string[];

  constructor(readonly markers: readonly string[]) {
    let m = 0;
    const f = new Set<number>();
    for (const s of markers) {
      m = Math.max(m, s.length);
      f.add(s.charCodeAt(0));
    }
    this.maxLen = m;
    this.firsts = f;
    this.lead = f.size === 1 ? markers[0][0] : '';
    this.byLength = [...markers].sort((a, b) => b.length - a.length);
  }

  /**
   * The earliest marker at or after `from`: [index, marker], or null. When all markers start
   * with the same character (they all start with `<` here), only the occurrences of that
   * character up to the match are examined, so a whole-text parse stays linear even when some
   * markers never occur.
   */
  find(text: string, from = 0): [number, string] | null {
    if (!this.lead) return findFirst(text, this.markers, from);
    for (let i = text.indexOf(this.lead, from); i !== -1; i = text.indexOf(this.lead, i + 1)) {
      for (const m of this.byLength) if (text.startsWith(m, i)) return [i, m];
    }
    return null;
  }

  /** Length of the longest suffix of `text` that is a proper prefix of a marker. */
  held(text: string): number {
    const from = Math.max(0, text.length - this.maxLen + 1);
    for (let i = text.length - 1; i >= from; i--) {
      if (this.firsts.has(text.charCodeAt(i))) return heldSuffixLength(text, this.markers);
    }
    return 0;
  }
}

export abstract class TokenStreamParser implements StreamingParser {
  protected buf = '';
  /** Index of the next call (advanced by `endCall`). */
  protected toolIndex = 0;
  private items: ParsedItem[] = [];
  protected readonly declared: ReadonlyMap<string, ToolSchema>;
  /** The item emitters, for helpers that report calls on this parser's behalf. */
  protected readonly emitter = {
    text: (s: string) => this.text(s),
    startCall: (name: string) => this.startCall(name),
    args: (s: string) => this.args(s),
    endCall: () => this.endCall(),
  };

  constructor(tools: readonly ToolSchema[]) {
    const m = new Map<string, ToolSchema>();
    for (const t of tools) if (!m.has(t.name)) m.set(t.name, t);
    this.declared = m;
  }

  push(delta: string): ParsedItem[] {
    this.buf += delta;
    this.drive(false);
    return this.takeItems();
  }

  finish(): ParsedItem[] {
    this.drive(true);
    this.atEnd();
    this.buf = '';
    return this.takeItems();
  }

  /** Consume part of `buf`; false when nothing more can be decided without more input. */
  protected abstract step(final: boolean): boolean;

  /** End of stream after the last `step`: release or close whatever is still open. */
  protected abstract atEnd(): void;

  protected text(s: string): void {
    if (s.length === 0) return;
    const last = this.items[this.items.length - 1];
    if (last && last.kind === 'text') last.text += s;
    else this.items.push({ kind: 'text', text: s });
  }

  protected startCall(name: string): void {
    this.items.push({ kind: 'tool_start', tool: this.toolIndex, name });
  }

  protected args(s: string): void {
    if (s.length === 0) return;
    const last = this.items[this.items.length - 1];
    if (last && last.kind === 'tool_args' && last.tool === this.toolIndex) last.text += s;
    else this.items.push({ kind: 'tool_args', tool: this.toolIndex, text: s });
  }

  protected endCall(): void {
    this.toolIndex++;
  }

  /** Drops the first `n` characters of `buf`. */
  protected consume(n: number): void {
    this.buf = n >= this.buf.length ? '' : this.buf.slice(n);
  }

  private drive(final: boolean): void {
    while (this.step(final)) {
      /* keep stepping */
    }
  }

  private takeItems(): ParsedItem[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

/** A ToolParserSpec whose `parse` is the streaming parser run over the whole text. */
export function wholeText(create: () => TokenStreamParser, text: string): ParsedItem[] {
  const p = create();
  const items = p.push(text);
  for (const it of p.finish()) items.push(it);
  return mergeItems(items);
}

/** Merges adjacent text items and adjacent argument items of the same call. */
export function mergeItems(items: ParsedItem[]): ParsedItem[] {
  const out: ParsedItem[] = [];
  for (const it of items) {
    const last = out[out.length - 1];
    if (last && it.kind === 'text' && last.kind === 'text') last.text += it.text;
    else if (last && it.kind === 'tool_args' && last.kind === 'tool_args' && last.tool === it.tool) last.text += it.text;
    else out.push({ ...it });
  }
  return out;
}
