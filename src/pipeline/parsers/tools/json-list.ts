/**
 * Reading a call object or a list of call objects (json-call.ts reads each object), for the
 * formats that write calls as bare JSON in text (json, mistral's `[TOOL_CALLS] [...]`, llama) and
 * for those that frame a JSON or Python payload with markers (cohere, sarashina, inkling: set
 * `framed`). Where they differ, the tests pin each:
 *
 * - In text, the list's first element decides: if it is a declared call the list is a call list;
 *   if it is not (or is not an object), the whole list stays text and is skipped, so a JSON answer
 *   that happens to be a list is not picked apart. Framed, a payload whose first call is not a
 *   declared call (or that is not a list or object of calls) is released as text at once (at an
 *   undeclared name's end), and the format decides how its text goes on.
 * - After a call, an element that is not a call object stays text in its place; one that is not
 *   an object at all ends the calls in text and is skipped silently when framed.
 * - Text that is not JSON at all (`[see above]`) is released up to the first character that
 *   cannot be JSON; framed, a syntax error after a call ends the payload (`Next.Broken`).
 * - Framed, a trailing comma before `]` ends the list; an undecided payload over the buffer limit
 *   is released as text rather than ending all parsing.
 */
import { type CallOptions, type CallShape, JSON_CALL, JsonCallReader, type ValueScanner } from './json-call.js';
import { isJsonNumberChar as numberCharImport } from './char-class.js';
import { Ev as EvEnum, JsonScanner } from './json-scan.js';
import { PARSER_BUFFER_LIMIT as LIMIT_IMPORT } from '../types.js';
import { FOLLOW_END as END_IMPORT, FOLLOW_TEXT as TEXT_IMPORT, FOLLOW_WAIT as WAIT_IMPORT, Next as NextEnum, ToolStreamParser } from './stream-base.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const isJsonNumberChar = numberCharImport;
const Ev = EvEnum;
const Next = NextEnum;
type Next = NextEnum;
const PARSER_BUFFER_LIMIT = LIMIT_IMPORT;
const FOLLOW_END = END_IMPORT;
const FOLLOW_TEXT = TEXT_IMPORT;
const FOLLOW_WAIT = WAIT_IMPORT;

const enum L {
  Start,
  Object,
  ArrOpen,
  ArrFirst,
  Skip,
  ArrSep,
  ArrElem,
  ArrNext,
  SkipValue,
}

const SEPARATORS = [',', ']'];
const PLAIN: CallOptions = {};
/** A framed payload's first call object is rejected at an undeclared name. */
const EARLY: CallOptions = { rejectEarly: true };

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

export abstract class JsonListParser extends ToolStreamParser {
  private l = L.Object;
  private arrayAt = 0;
  private reader: JsonCallReader | null = null;
  private skipper: ValueScanner | null = null;
  private listAllowed = true;
  /** The call started before the payload (framed, preset name), or -1. */
  private preset = -1;

  protected shape: CallShape = JSON_CALL;
  /** Calls in a marker-framed payload rather than in text (see the file comment). */
  protected framed = false;

  /** A call object begins at `pos`; the candidate (`cand`, marker included) is already set. */
  protected startObject(): void {
    this.reader = new JsonCallReader(this, this.pos, this.shape, this.framed ? EARLY : PLAIN);
    this.l = L.Object;
  }

  /** An array begins at `pos` (on the `[`); the candidate is already set. */
  protected startArray(): void {
    this.arrayAt = this.pos;
    this.pos++;
    this.l = L.ArrOpen;
  }

  /**
   * Framed: a payload begins at `pos` (after its marker; the candidate is set): an object, or a
   * list when `list`. With `preset` (a call already started from the format's header) the payload
   * is that call's object, and anything else is skipped for `{}`.
   */
  protected startPayload(list: boolean, preset = -1): void {
    this.listAllowed = list && preset === -1;
    this.preset = preset;
    this.l = L.Start;
  }

  /** Advances the object or array: Done when it ended (pos after it), Text when back to text, Broken (framed) when it broke off. */
  protected stepList(): Next {
    for (;;) {
      switch (this.l) {
        case L.Start: {
          if (!this.skipWs()) {
            if (!this.endKnown()) return Next.Wait;
            return this.preset >= 0 ? this.endPreset() : this.release(this.readEnd());
          }
          const c = this.buf.charCodeAt(this.pos);
          if (c === 0x7b) {
            this.reader = new JsonCallReader(this, this.pos, this.shape, this.preset >= 0 ? { preset: this.preset } : EARLY);
            this.l = L.Object;
          } else if (c === 0x5b && this.listAllowed) this.startArray();
          else if (this.preset >= 0) this.startSkip();
          else return this.releaseAfterScalar();
          break;
        }
        case L.Object:
          return this.stepCall(this.reader as JsonCallReader);
        case L.ArrOpen:
          if (!this.skipWs()) {
            if (!this.endKnown()) return Next.Wait;
            return this.release(this.readEnd());
          }
          if (this.buf.charCodeAt(this.pos) !== 0x7b) {
            if (this.framed) return this.releaseAfterScalar();
            this.skipper = new JsonScanner(this.arrayAt);
            this.l = L.Skip;
            break;
          }
          this.reader = new JsonCallReader(this, this.pos, this.shape, this.framed ? EARLY : PLAIN);
          this.l = L.ArrFirst;
          break;
        case L.ArrFirst: {
          const r = this.reader as JsonCallReader;
          const next = this.stepCall(r, false);
          if (next === Next.Wait) return next;
          if (next === Next.Done) this.l = L.ArrSep;
          else if (next !== Next.Rejected) return next; // broken after its commit, or released at the end
          else if (this.framed || !r.complete) {
            // Not JSON (or, framed, not a call): text up to where reading stopped; scanning resumes there.
            return this.release(r.pos);
          } else {
            // Not a call: the rest of the array is skipped as text.
            this.skipper = JsonScanner.afterArrayElement(r.pos);
            this.l = L.Skip;
          }
          break;
        }
        case L.Skip: {
          const sc = this.skipper as ValueScanner;
          const end = this.candidateEnd();
          const ev = sc.scan(this.buf, end);
          if (ev === Ev.Done || ev === Ev.Error) return this.release(sc.pos);
          if (this.candLength(end) >= PARSER_BUFFER_LIMIT) {
            this.giveUp();
            return Next.Wait;
          }
          if (this.final) return this.release(this.buf.length);
          sc.rebase(this.holdCand(sc.pos));
          return Next.Wait;
        }
        case L.ArrSep: {
          const f = this.follow(SEPARATORS);
          if (f === FOLLOW_WAIT) return Next.Wait;
          if (f === FOLLOW_END) {
            this.pos = this.readEnd();
            return Next.Done;
          }
          if (f === FOLLOW_TEXT) {
            if (!this.framed) return Next.Text;
            this.skipWs();
            return Next.Broken;
          }
          this.pos++;
          if (f === 1) return Next.Done;
          this.l = L.ArrElem;
          break;
        }
        case L.ArrElem: {
          if (!this.skipWs()) {
            if (!this.endKnown()) return Next.Wait;
            return Next.Done;
          }
          const c = this.buf.charCodeAt(this.pos);
          if (c !== 0x7b) {
            if (!this.framed) return Next.Text;
            if (c === 0x5d) {
              this.pos++; // `]` after a trailing comma
              return Next.Done;
            }
            this.startSkip();
            break;
          }
          this.setCand(this.pos);
          this.reader = new JsonCallReader(this, this.pos, this.shape, PLAIN);
          this.l = L.ArrNext;
          break;
        }
        case L.ArrNext: {
          const r = this.reader as JsonCallReader;
          const next = this.stepCall(r);
          if (next === Next.Wait) return next;
          // Not a call and released: read on after it, unless the text ended (or, framed, it broke).
          const ended = this.endKnown() && this.pos >= this.readEnd();
          if (next === Next.Done || (!r.committed && !ended && (r.complete || !this.framed))) this.l = L.ArrSep;
          else if (this.framed && !r.committed) return ended ? Next.Done : Next.Broken;
          else return next;
          break;
        }
        case L.SkipValue: {
          const sc = this.skipper as ValueScanner;
          let ev = sc.scan(this.buf, this.readEnd());
          if (ev === Ev.More) {
            if (!this.endKnown()) {
              this.pos = sc.pos;
              sc.rebase(this.dropConsumed());
              return Next.Wait;
            }
            ev = sc.endOfInput();
          }
          this.pos = ev === Ev.More ? this.readEnd() : sc.pos;
          if (this.preset >= 0) this.endPreset();
          else if (ev === Ev.Done) {
            this.l = L.ArrSep;
            break;
          }
          return ev === Ev.Error ? Next.Broken : Next.Done;
        }
      }
    }
  }

  /** Framed: a value that is not a call object, read and dropped. */
  private startSkip(): void {
    this.skipper = this.shape.syntax.scanner(this.pos, false);
    this.l = L.SkipValue;
  }

  /** The preset call had no object: it ends with `{}`. */
  private endPreset(): Next {
    this.out.args(this.preset, '{}');
    this.preset = -1;
    return Next.Done;
  }

  /**
   * Framed: the payload (or its first element) at `pos` is not an object, so it is text; a number
   * or literal is read to its end first, so that the text is released where the payload's reading
   * stopped (Wait while the token may go on).
   */
  private releaseAfterScalar(): Next {
    const buf = this.buf;
    const end = this.readEnd();
    let i = this.pos;
    const c = buf.charCodeAt(i);
    const inToken = c === 0x2d || (c >= 0x30 && c <= 0x39) ? isJsonNumberChar : isLetter(c) ? isLetter : null;
    if (inToken !== null) {
      while (i < end && inToken(buf.charCodeAt(i))) i++;
      if (i === end && !this.endKnown()) return Next.Wait;
    }
    return this.release(i);
  }

  /** The candidate up to `to` is text; back to text there. */
  private release(to: number): Next {
    this.releaseCand(to);
    return Next.Text;
  }

  /** Framed: an undecided payload over the limit is released as text, and reading goes on. */
  protected override overLimit(readTo: number): void {
    if (this.framed) this.releaseCand(readTo);
    else this.giveUp();
  }
}
