/**
 * The frame every tool parser here is built on. A parser is a state machine over a buffer of
 * undecided text: `push()` appends a delta and runs the machine as far as the text decides; the
 * machine waits (holds text) only where the next characters could still change the outcome.
 * `parse()` is the same machine fed the whole text at once, so streamed and non-streamed output
 * agree by construction for any split whose decisions do not depend on where deltas end — which is
 * what every state below is written to guarantee, and what the tests check split by split.
 *
 * Shared rules (request-pipeline §11.3 leaves them open; these keep both paths equal):
 * - text before a call is emitted as soon as it cannot begin a start marker;
 * - a call is committed (`tool_start`) once its name is complete and declared; before that, a
 *   candidate that turns out not to be a call is released verbatim as text;
 * - after a call, whitespace is held: dropped if another call or the end follows, released if
 *   other text follows;
 * - a committed call that is cut off (end of stream) or turns malformed still ends as a call,
 *   its arguments closed into valid JSON;
 * - an undecided candidate longer than PARSER_BUFFER_LIMIT is released as text and the parser
 *   passes everything after it through unparsed.
 */
import type { ParsedItem, StreamingParser } from '../types.js';
import { PARSER_BUFFER_LIMIT } from '../types.js';
import { isJsonWs as isWs } from './char-class.js';
import { type CallContext, JsonCallReader, Step } from './json-call.js';
import { MarkerFinder } from './marker-finder.js';
import { ItemSink } from './sink.js';
import type { ToolParserSpec, ToolSchema } from './types.js';

/** Outcome of matching a literal at a position: it is there, it is not, or the buffer ends inside it. */
export const enum Match {
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
 * (`buf.length` if none). Only the last `maxLen - 1` characters are looked at; no allocation.
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

/** What the state machine does after a call-reading step. */
export const enum Next {
  /** Stop: more text is needed (or the parser gave up and passes text through). */
  Wait,
  /** The call ended normally; `pos` is just after it. */
  Done,
  /** Back to plain text at `pos` (a rejected candidate was released, or a broken call's rest is text). */
  Text,
}

/** Results of `findWithin` besides an index. */
export const FIND_NO = -1;
export const FIND_WAIT = -2;

/** Result of `follow`: the index of the marker found at `pos`, or one of these. */
export const FOLLOW_WAIT = -1;
export const FOLLOW_TEXT = -2;
export const FOLLOW_END = -3;

export abstract class ToolStreamParser implements StreamingParser {
  protected buf = '';
  protected pos = 0;
  protected final = false;
  protected readonly out = new ItemSink();
  protected readonly tools: readonly ToolSchema[];
  private readonly names: ReadonlySet<string>;
  /** What call readers need from the parser: the sink and the declared names. */
  protected readonly ctx: CallContext;
  /** Where the whitespace skipped by the last `follow` began (a candidate that fails releases it too). */
  protected followWs = 0;
  private finder: MarkerFinder | null = null;
  /** Where the current candidate starts in `buf` (what came before it was emitted or dropped). */
  protected cand = 0;
  /** The part of the candidate already moved out of `buf` (see holdCand). */
  private candHead = '';
  /** Set once the buffer limit was hit: everything after is text. */
  protected passthrough = false;

  constructor(tools: readonly ToolSchema[]) {
    this.tools = tools;
    const names = new Set(tools.map((t) => t.name));
    this.names = names;
    this.ctx = { out: this.out, declared: (name: string) => names.has(name) };
  }

  push(delta: string): ParsedItem[] {
    if (this.passthrough) return delta.length > 0 ? [{ kind: 'text', text: delta }] : [];
    // The per-token fast path: plain text with nothing held and no character that can open a marker.
    if (this.buf.length === 0 && this.inPlainText() && !hasAnyChar(delta, this.startChars)) {
      return delta.length > 0 ? [{ kind: 'text', text: delta }] : [];
    }
    this.buf += delta;
    this.run();
    return this.out.take();
  }

  finish(): ParsedItem[] {
    if (!this.passthrough) {
      this.final = true;
      this.run();
    }
    return this.out.take();
  }

  /** Runs the state machine until it needs more text (or, when `final`, to the end). */
  protected abstract run(): void;

  /** The first characters of the start markers (a delta without any of them cannot open a call). */
  protected abstract readonly startChars: string;

  /** Whether the machine is in its plain-text state (where `startChars` is all that matters). */
  protected abstract inPlainText(): boolean;

  protected declared(name: string): boolean {
    return this.names.has(name);
  }

  protected schemaOf(name: string): ToolSchema | undefined {
    return this.tools.find((t) => t.name === name);
  }

  /**
   * Plain-text state: emits text up to the earliest of `markers` and returns that marker with
   * `pos` on it; or, when none is there, emits all but a possible partial marker at the end and
   * returns null. Drops the emitted text from the buffer.
   */
  protected scanText(markers: readonly string[], maxLen: number): string | null {
    if (this.finder === null || this.finder.markers !== markers) this.finder = new MarkerFinder(markers);
    const [at, which] = this.finder.find(this.buf, this.pos);
    if (at !== -1) {
      this.out.text(this.buf.slice(this.pos, at));
      this.pos = at;
      return which;
    }
    const keep = this.final ? this.buf.length : partialMarkerStart(this.buf, this.pos, markers, maxLen);
    this.out.text(this.buf.slice(this.pos, keep));
    this.pos = keep;
    this.dropConsumed();
    return null;
  }

  /**
   * After a call: skips whitespace and looks for one of `markers`. Returns the marker's index with
   * `pos` on it (the whitespace starts at `followWs`: part of the next candidate, dropped if that
   * commits, released with it if not); FOLLOW_TEXT with `pos` back on the whitespace when
   * something else follows; FOLLOW_END at the end of the stream (whitespace dropped); FOLLOW_WAIT
   * when more text is needed.
   */
  protected follow(markers: readonly string[]): number {
    const ws = this.pos;
    this.followWs = ws;
    if (!this.skipWs()) {
      if (this.final) return FOLLOW_END;
      this.pos = ws;
      return FOLLOW_WAIT;
    }
    let partial = false;
    for (let k = 0; k < markers.length; k++) {
      const m = this.match(markers[k]);
      if (m === Match.Yes) return k;
      if (m === Match.Partial) partial = true;
    }
    this.pos = ws;
    return partial ? FOLLOW_WAIT : FOLLOW_TEXT;
  }

  /**
   * One step of a JSON call object read by `r` for the current candidate (`cand`): handles the
   * buffer limit, the end of the stream, and releasing a rejected candidate, so the format's
   * machine only decides what comes after.
   */
  protected stepCall(r: JsonCallReader, releaseRejected = true): Next {
    const end = r.committed ? this.buf.length : this.candidateEnd();
    const s = r.step(this.buf, end);
    switch (s) {
      case Step.Done:
        this.pos = r.pos;
        return Next.Done;
      case Step.Reject:
        if (releaseRejected) this.releaseCand(r.pos);
        return Next.Text;
      case Step.Broken:
        this.pos = r.pos;
        return Next.Text;
      case Step.More:
        break;
    }
    if (r.committed) {
      if (this.final) {
        r.finish();
        this.pos = this.buf.length;
        return Next.Done;
      }
      this.pos = r.pos;
      r.rebase(this.dropConsumed());
      return Next.Wait;
    }
    if (this.candLength(end) >= PARSER_BUFFER_LIMIT) {
      this.giveUp();
      return Next.Wait;
    }
    if (this.final) {
      this.releaseCand(this.buf.length);
      return Next.Text;
    }
    r.rebase(this.holdCand(r.pos));
    return Next.Wait;
  }

  /**
   * Where `lit` next occurs, if it starts within `limit` characters of `pos`; FIND_NO when the text
   * shows it does not (decided by content, not by where the buffer happens to end); FIND_WAIT when
   * more text is needed to tell.
   */
  protected findWithin(lit: string, limit: number): number {
    // Only the window that can hold it is searched, so a miss costs O(limit), not O(buffer).
    const window = this.buf.slice(this.pos, this.pos + limit + lit.length);
    const i = window.indexOf(lit);
    if (i !== -1) return this.pos + i;
    if (this.final || window.length === limit + lit.length) return FIND_NO;
    return FIND_WAIT;
  }

  /** Skips whitespace; returns false when the buffer ends first. */
  protected skipWs(): boolean {
    const buf = this.buf;
    let i = this.pos;
    while (i < buf.length && isWs(buf.charCodeAt(i))) i++;
    this.pos = i;
    return i < buf.length;
  }

  /** `matchAt` at `pos`, with Partial read as No once the stream has ended. */
  protected match(lit: string): Match {
    const m = matchAt(this.buf, this.pos, lit);
    return m === Match.Partial && this.final ? Match.No : m;
  }

  /** A candidate (a possible call, marker and leading whitespace included) starts at `at`. */
  protected setCand(at: number): void {
    this.cand = at;
    this.candHead = '';
  }

  /** The candidate is not a call: its text up to `to` is emitted as is, and `pos` moves to `to`. */
  protected releaseCand(to: number): void {
    this.out.text(this.candHead + this.buf.slice(this.cand, to));
    this.candHead = '';
    this.cand = to;
    this.pos = to;
  }

  /**
   * Moves the already-read part of an undecided candidate (up to `readTo`) out of `buf`, so a
   * long candidate is not copied again on every delta (appending to a long string and reading it
   * flattens it each time). Returns how far buffer indices moved (for the reader's `rebase`).
   */
  protected holdCand(readTo: number): number {
    this.candHead += this.buf.slice(this.cand, readTo);
    this.pos = readTo;
    const n = this.dropConsumed();
    this.cand = 0;
    return n;
  }

  /** How long the candidate is up to `to`. */
  protected candLength(to: number): number {
    return this.candHead.length + to - this.cand;
  }

  /** Forgets the buffer before `pos` (call only when nothing before `pos` is needed again). */
  protected dropConsumed(): number {
    const n = this.pos;
    if (n === 0) return 0;
    this.buf = n === this.buf.length ? '' : this.buf.slice(n);
    this.pos = 0;
    this.finder?.shift(n);
    return n;
  }

  /** The limit is hit: the candidate and everything after it is text, now and for the rest of the stream. */
  protected giveUp(): void {
    this.out.text(this.candHead + this.buf.slice(this.cand));
    this.candHead = '';
    this.buf = '';
    this.finder?.reset();
    this.pos = 0;
    this.passthrough = true;
  }

  /** Where reading an undecided candidate must stop, so the limit falls at a fixed text position. */
  protected candidateEnd(): number {
    return Math.min(this.buf.length, this.cand + PARSER_BUFFER_LIMIT - this.candHead.length);
  }
}

function hasAnyChar(s: string, chars: string): boolean {
  for (let k = 0; k < chars.length; k++) if (s.indexOf(chars[k]) !== -1) return true;
  return false;
}

/** A registry entry whose non-streaming parse is the streaming machine fed the whole text. */
export function toolParserSpec(name: string, create: (tools: readonly ToolSchema[]) => StreamingParser): ToolParserSpec {
  return {
    name,
    create,
    parse(text: string, tools: readonly ToolSchema[]): ParsedItem[] {
      const p = create(tools);
      const items = p.push(text);
      for (const it of p.finish()) items.push(it);
      return mergeAdjacent(items);
    },
  };
}

/** Merges neighbouring text items and neighbouring argument pieces of one call. */
function mergeAdjacent(items: ParsedItem[]): ParsedItem[] {
  const out: ParsedItem[] = [];
  for (const it of items) {
    const last = out.length > 0 ? out[out.length - 1] : undefined;
    if (last && last.kind === 'text' && it.kind === 'text') last.text += it.text;
    else if (last && last.kind === 'tool_args' && it.kind === 'tool_args' && last.tool === it.tool) last.text += it.text;
    else out.push({ ...it });
  }
  return out;
}
