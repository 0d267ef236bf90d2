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
import { Match as MatchEnum, matchAt as matchAtImport } from '../markers.js';
import type { ParsedItem, StreamingParser } from '../types.js';
import { PARSER_BUFFER_LIMIT as LIMIT_IMPORT } from '../types.js';
import { isJsonWs } from './char-class.js';
import { type CallContext, JsonCallReader, Step as StepEnum } from './json-call.js';
import { MarkerFinder } from './marker-finder.js';
import { ItemSink } from './sink.js';
import type { ToolParserSpec, ToolSchema } from './types.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const isWs = isJsonWs;
const matchAt = matchAtImport;
const Match = MatchEnum;
type Match = MatchEnum;
const Step = StepEnum;
const PARSER_BUFFER_LIMIT = LIMIT_IMPORT;

/** What the state machine does after a call-reading step. */
export enum Next {
  /** Stop: more text is needed (or the parser gave up and passes text through). */
  Wait,
  /** The call ended normally; `pos` is just after it. */
  Done,
  /** Back to plain text at `pos` (a rejected candidate was released). */
  Text,
  /** A committed call broke off at malformed text at `pos` (the JSON-family formats read on as text). */
  Broken,
  /** Not a call, and nothing was released (`stepCall` asked not to): the caller decides. */
  Rejected,
}

/** Results of `findWithin` besides an index. */
export const FIND_NO = -1;
export const FIND_WAIT = -2;

/** Result of `follow`: the index of the marker found at `pos`, or one of these. */
export const FOLLOW_WAIT = -1;
export const FOLLOW_TEXT = -2;
export const FOLLOW_END = -3;

/** The parser is its call readers' context (json-call.ts): its sink and its declared names. */
export abstract class ToolStreamParser implements StreamingParser, CallContext {
  protected buf = '';
  protected pos = 0;
  protected final = false;
  readonly out = new ItemSink();
  protected readonly tools: readonly ToolSchema[];
  private readonly names = new Set<string>();
  /** Where the whitespace skipped by the last `follow` began (a candidate that fails releases it too). */
  protected followWs = 0;
  /** The marker `upTo` stopped at ('' when it stopped at the end of the decided text). */
  protected hit = '';
  /**
   * Where the text being read ends when a format bounds it by an end marker (a payload read up to
   * `<|END_ACTION|>`: the marker, or a possible partial one at the buffer's end), or -1: the
   * buffer's end. With `boundIsEnd` (the marker is there) readers treat it like the end of the stream.
   */
  protected bound = -1;
  protected boundIsEnd = false;
  /** Where the current candidate starts in `buf` (what came before it was emitted or dropped). */
  protected cand = 0;
  /** The part of the candidate already moved out of `buf` (see holdCand). */
  private candHead = '';
  /** Set once the buffer limit was hit: everything after is text. */
  protected passthrough = false;
  /** How many characters `buf` has lost at its front (marker finders keep absolute offsets). */
  protected dropped = 0;

  constructor(tools: readonly ToolSchema[]) {
    this.tools = tools;
    for (const t of tools) this.names.add(t.name);
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

  declared(name: string): boolean {
    return this.names.has(name);
  }

  protected schemaOf(name: string): ToolSchema | undefined {
    return this.tools.find((t) => t.name === name);
  }

  /** A marker set for this parser's buffer (a finder remembers positions, so each parser has its own). */
  protected markerSet(markers: readonly string[]): MarkerFinder {
    return new MarkerFinder(markers);
  }

  /** `set.locate` at `pos` in this parser's buffer: the marker's index or -1 (`set.located` says which). */
  protected locate(set: MarkerFinder, from = this.pos): number {
    return set.locate(this.buf, from, this.dropped);
  }

  /**
   * Where the decided text from `pos` ends: at the earliest marker of `set` (`hit` is that marker),
   * or, when none is there, at the end of the buffer less a possible partial marker (`hit` is '').
   */
  protected upTo(set: MarkerFinder): number {
    const at = set.locate(this.buf, this.pos, this.dropped);
    this.hit = set.located;
    if (at !== -1) return at;
    return this.final ? this.buf.length : set.partialStart(this.buf, this.pos);
  }

  /**
   * Plain-text state: emits text up to the earliest marker of `set` and returns that marker with
   * `pos` on it; or, when none is there, emits all but a possible partial marker at the end and
   * returns null. Drops the emitted text from the buffer.
   */
  protected scanText(set: MarkerFinder): string | null {
    const at = this.upTo(set);
    this.out.text(this.buf.slice(this.pos, at));
    this.pos = at;
    if (this.hit !== '') return this.hit;
    this.dropConsumed();
    return null;
  }

  /** Moves `pos` to `to` and forgets the buffer before it. */
  protected consumeTo(to: number): void {
    this.pos = to;
    this.dropConsumed();
  }

  /** Where reading stops: the bound, or the buffer's end. */
  protected readEnd(): number {
    return this.bound >= 0 ? this.bound : this.buf.length;
  }

  /** No text will come before `readEnd()` (the stream ended, or an end marker bounds the text). */
  protected endKnown(): boolean {
    return this.final || this.boundIsEnd;
  }

  /** Bounds the text read from now on by the first marker of `set` (see `bound`); `unbound()` lifts it. */
  protected boundBy(set: MarkerFinder): void {
    this.bound = this.upTo(set);
    this.boundIsEnd = this.hit !== '';
  }

  protected unbound(): void {
    this.bound = -1;
    this.boundIsEnd = false;
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
      if (this.endKnown()) return FOLLOW_END;
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
    const end = r.committed ? this.readEnd() : this.candidateEnd();
    const s = r.step(this.buf, end);
    switch (s) {
      case Step.Done:
        this.pos = r.pos;
        return Next.Done;
      case Step.Reject:
        if (!releaseRejected) return Next.Rejected;
        this.releaseCand(r.pos);
        return Next.Text;
      case Step.Broken:
        this.pos = r.pos;
        return Next.Broken;
      case Step.More:
        break;
    }
    if (r.committed) {
      if (this.endKnown()) {
        r.finish();
        this.pos = this.readEnd();
        return Next.Done;
      }
      this.pos = r.pos;
      r.rebase(this.dropConsumed());
      return Next.Wait;
    }
    if (this.candLength(end) >= PARSER_BUFFER_LIMIT) {
      this.overLimit(r.pos);
      return this.passthrough ? Next.Wait : Next.Text;
    }
    if (this.endKnown()) {
      this.releaseCand(this.readEnd());
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

  /** Skips whitespace; returns false when the text (to `readEnd()`) ends first. */
  protected skipWs(): boolean {
    const buf = this.buf;
    const end = this.readEnd();
    let i = this.pos;
    while (i < end && isWs(buf.charCodeAt(i))) i++;
    this.pos = i;
    return i < end;
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
    if (this.bound >= 0) this.bound -= n;
    this.dropped += n;
    return n;
  }

  /**
   * An undecided candidate reached PARSER_BUFFER_LIMIT. By default the candidate and everything
   * after it is text, now and for the rest of the stream (`giveUp`); a format may release just
   * the candidate (read up to `readTo`) instead and read on.
   */
  protected overLimit(_readTo: number): void {
    this.giveUp();
  }

  /** The candidate and everything after it is text, now and for the rest of the stream. */
  protected giveUp(): void {
    this.out.text(this.candHead + this.buf.slice(this.cand));
    this.candHead = '';
    this.buf = '';
    this.pos = 0;
    this.bound = -1;
    this.boundIsEnd = false;
    this.passthrough = true;
  }

  /** Where reading an undecided candidate must stop, so the limit falls at a fixed text position. */
  protected candidateEnd(): number {
    return Math.min(this.readEnd(), this.cand + PARSER_BUFFER_LIMIT - this.candHead.length);
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
