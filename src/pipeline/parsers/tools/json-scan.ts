/**
 * The one resumable JSON scanner behind every tool parser that reads JSON (and Harmony's call
 * arguments). It reads one JSON value out of a growing buffer, a character once each, and stops
 * where the caller must decide something:
 *
 * - with `events` on and the value an object, at each top-level key, at the first character of
 *   each top-level value and at its end (how `{"name": …, "arguments": …}` calls are read);
 * - when the value is complete (`Done`), malformed (`Error`), or the input runs out (`More`).
 *
 * While `capture` is on it writes the compact form of what it reads (json-out.ts), so argument
 * diffs are final the moment they are produced; `close()` gives the text that makes a cut-off
 * capture valid JSON. With `collect` on it gathers the decoded content of the current string into
 * `str` (a call's name). With `spelling` it also tells how much of the text is already compact
 * (json-spelling.ts). Raw control characters inside strings are accepted and written escaped
 * (models do write literal newlines in JSON strings); otherwise the grammar is RFC 8259, or with a
 * lenient dialect also trailing commas and unknown escapes (`\q` → `q`).
 *
 * Hand-written rather than partial-json: re-parsing the accumulated text with partial-json on
 * every delta measured 0.9 ms per token for 2 KB of arguments and 3 ms per token for 20 KB, and a
 * re-parse cannot give the same items for every split of a broken payload; this reads each
 * character once, so a push costs O(delta).
 */
import { hexDigit as hexDigitImport, isJsonNumberChar, isJsonWs, jsonEscape as jsonEscapeImport } from './char-class.js';
import { compactNumber as compactNumberImport, escapeUnit, truncatedNumber } from './compact-writer.js';
import { JsonOut } from './json-out.js';
import { JsonSpelling } from './json-spelling.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const isWs = isJsonWs;
const isNumChar = isJsonNumberChar;
const hexDigit = hexDigitImport;
const jsonEscape = jsonEscapeImport;
const compactNumber = compactNumberImport;

export enum Ev {
  More,
  Key,
  ValueStart,
  ValueEnd,
  Done,
  Error,
}

/** How a family of parsers reads and writes JSON (the differences their tests pin). */
export interface JsonDialect {
  /**
   * Trailing commas and unknown escapes (`\q` → `q`) are accepted, and a literal (a run of
   * letters) or a `\u` escape (four characters) is read whole before it is judged, so a broken
   * payload stops where that token ends.
   */
  readonly lenient: boolean;
  /** Members are written settled rather than eager (json-out.ts). */
  readonly settled: boolean;
  /** Integers keep every digit instead of `JSON.stringify(Number(token))`. */
  readonly exactIntegers: boolean;
}

/** The JSON-family parsers and Harmony: RFC 8259, eager members, numbers as JSON.stringify writes them. */
export const RFC_JSON: JsonDialect = { lenient: false, settled: false, exactIntegers: false };
/** The token-format parsers (kimik2, cohere, inkling, typed key/value arguments). */
export const MODEL_JSON: JsonDialect = { lenient: true, settled: true, exactIntegers: true };

export interface ScanOptions {
  events?: boolean;
  dialect?: JsonDialect;
  /** Track canonical spelling and key order (Harmony). */
  spelling?: boolean;
}

/** Scanner states; the ones between tokens come first (see the whitespace skip in `scan`). */
const enum S {
  Value,
  ObjFirst,
  ObjKey,
  Colon,
  After,
  ArrFirst,
  Str,
  Esc,
  Hex,
  Num,
  Lit,
  /** lenient: a literal as a run of letters, judged when it ends (`truex` is not `true`). */
  Word,
  Done,
}

const KEY_LIMIT = 256;
const NO_OPTIONS: ScanOptions = {};
/** Container kinds (JsonOut's: odd kinds are objects). */
const OBJ = 1;
const ARR = 2;

function isLiteral(word: string): boolean {
  return word === 'true' || word === 'false' || word === 'null';
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

export class JsonScanner {
  /** Index in the buffer of the next character to read. */
  pos: number;
  /** The last top-level key (events mode); '' when it was too long to matter. */
  key = '';
  /** Decoded content of the current string while `collect` is on. */
  str = '';
  collect = false;
  collectLimit = Number.POSITIVE_INFINITY;
  /** True when `str` stopped growing at `collectLimit`. */
  collectOverflow = false;
  readonly spelling: JsonSpelling | null;

  private s = S.Value;
  /** Set by a syntax error; `s` keeps the state the error happened in, for `close()`. */
  private failed = false;
  private readonly stack: number[] = [];
  private readonly events: boolean;
  private readonly lenient: boolean;
  private readonly exact: boolean;
  private readonly o: JsonOut;
  private startReported = false;
  private strIsKey = false;
  private hexLeft = 0;
  private hexVal = 0;
  private hexUpper = false;
  private hexBad = false;
  private num = '';
  private lit = '';
  private litAt = 0;
  private afterColon = false;
  /** The decoded key being read (spelling only). */
  private keyText = '';

  constructor(pos: number, opts: ScanOptions = NO_OPTIONS) {
    this.pos = pos;
    this.events = opts.events ?? false;
    const d = opts.dialect ?? RFC_JSON;
    this.lenient = d.lenient;
    this.exact = d.exactIntegers;
    this.o = new JsonOut(d.settled);
    this.spelling = opts.spelling ? new JsonSpelling() : null;
  }

  get done(): boolean {
    return this.s === S.Done;
  }

  /** Compact JSON written while `capture` was on; the caller drains it. */
  get out(): string {
    return this.o.text;
  }

  set out(s: string) {
    this.o.text = s;
  }

  /** A scanner placed inside an array, just after one of its elements (for skipping the rest). */
  static afterArrayElement(pos: number, dialect: JsonDialect = RFC_JSON): JsonScanner {
    const sc = new JsonScanner(pos, { dialect });
    sc.stack.push(ARR);
    sc.s = S.After;
    return sc;
  }

  /** Start or stop writing compact output (at a value boundary: a `ValueStart`/`ValueEnd` stop, or before the first character). */
  set capture(on: boolean) {
    this.o.capture(on, this.stack.length);
  }

  get capture(): boolean {
    return this.o.capturing;
  }

  /** Moves the scanner's position after the caller dropped `n` characters from the buffer's front. */
  rebase(n: number): void {
    this.pos -= n;
  }

  /** Reads `buf` from `pos` up to `end` (default: all of it); see the file comment for the stops. */
  scan(buf: string, end = buf.length): Ev {
    if (this.failed) return Ev.Error;
    const sp = this.spelling;
    let i = this.pos;
    while (i < end) {
      const c = buf.charCodeAt(i);
      // Whitespace between tokens (the states up to ArrFirst) is skipped; in the others it matters.
      if (this.s <= S.ArrFirst && isWs(c)) {
        if (sp !== null) sp.freeze();
        i++;
        continue;
      }
      switch (this.s) {
        case S.Value:
          if (this.events && !this.startReported && this.stack.length === 1 && this.stack[0] === OBJ) {
            this.startReported = true;
            this.pos = i;
            return Ev.ValueStart;
          }
          if (this.lenient && c === 0x5d && !this.afterColon && this.stack[this.stack.length - 1] === ARR) {
            // `]` after a trailing comma.
            if (this.closeContainer(ARR, ++i)) return this.stopAt(i);
            break;
          }
          if (!this.beginValue(c, i)) return this.fail(i);
          i++;
          break;
        case S.ObjFirst:
        case S.ObjKey:
          if (c === 0x22) {
            this.beginKey(i);
            i++;
          } else if (c === 0x7d && (this.s === S.ObjFirst || this.lenient)) {
            if (this.closeContainer(OBJ, ++i)) return this.stopAt(i);
          } else return this.fail(i);
          break;
        case S.Colon:
          if (c !== 0x3a) return this.fail(i);
          if (this.o.capturing) this.o.colon();
          this.s = S.Value;
          this.afterColon = true;
          this.startReported = false;
          i++;
          if (sp !== null) sp.token(i, true);
          break;
        case S.After:
          if (c === 0x2c) {
            i++;
            if (this.o.capturing) this.o.separator(this.stack.length);
            if (sp !== null) sp.token(i, true);
            if (this.stack[this.stack.length - 1] === OBJ) this.s = S.ObjKey;
            else {
              this.s = S.Value;
              this.afterColon = false;
            }
          } else if (c === 0x7d || c === 0x5d) {
            i++;
            if (this.stack[this.stack.length - 1] !== (c === 0x7d ? OBJ : ARR)) return this.fail(i - 1);
            if (this.closeContainer(c === 0x7d ? OBJ : ARR, i)) return this.stopAt(i);
          } else return this.fail(i);
          break;
        case S.ArrFirst:
          if (c === 0x5d) {
            if (this.closeContainer(ARR, ++i)) return this.stopAt(i);
          } else {
            this.s = S.Value;
            this.afterColon = false;
          }
          break;
        case S.Str: {
          // Fast path: a run of characters that are written as themselves.
          const start = i;
          let k = i;
          let ck = c;
          while (ck !== 0x22 && ck !== 0x5c && ck >= 0x20 && (ck < 0xd800 || ck > 0xdfff)) {
            if (++k === end) break;
            ck = buf.charCodeAt(k);
          }
          if (k > start) {
            // The run is only sliced out when something takes it (skipped values are just read).
            if (this.o.capturing || this.collect || this.strIsKey) this.strRun(buf.slice(start, k));
            if (sp !== null) sp.token(k, true);
          }
          i = k;
          if (i === end) break;
          i++;
          if (ck === 0x22) {
            if (sp !== null) sp.token(i, true);
            if (this.endString()) return this.stopAt(i);
          } else if (ck === 0x5c) this.s = S.Esc;
          else {
            if (sp !== null) this.spellRawUnit(sp, ck, i);
            this.strUnit(ck);
          }
          break;
        }
        case S.Esc: {
          if (c === 0x75) {
            this.s = S.Hex;
            this.hexLeft = 4;
            this.hexVal = 0;
            this.hexUpper = false;
            this.hexBad = false;
            i++;
            break;
          }
          let u = jsonEscape(c);
          if (u < 0) {
            if (!this.lenient) return this.fail(i);
            u = c; // an unknown escape stands for the character itself
          }
          this.s = S.Str;
          this.strUnit(u);
          i++;
          // Compact JSON writes every short escape the same way, except `\/` (as `/`).
          if (sp !== null) sp.token(i, c !== 0x2f && jsonEscape(c) >= 0);
          break;
        }
        case S.Hex: {
          const d = hexDigit(c);
          if (d < 0) {
            if (!this.lenient) return this.fail(i);
            this.hexBad = true;
          }
          if (this.hexBad && this.hexLeft === 1) return this.fail(i);
          if (d > 9 && c < 0x61) this.hexUpper = true;
          this.hexVal = this.hexVal * 16 + d;
          i++;
          if (--this.hexLeft === 0) {
            this.s = S.Str;
            this.strUnit(this.hexVal);
            // Only a control character without a short escape is written as `\u00xx` (lower-case).
            if (sp !== null) sp.token(i, !this.hexUpper && this.hexVal < 0x20 && escapeUnit(this.hexVal).length === 6);
          }
          break;
        }
        case S.Num:
          if (isNumChar(c)) {
            this.num += buf[i];
            i++;
            break;
          }
          if (!this.endNumber(i)) return this.fail(i);
          if (this.valueDone()) return this.stopAt(i);
          break;
        case S.Lit:
          if (c !== this.lit.charCodeAt(this.litAt)) return this.fail(i);
          i++;
          if (++this.litAt === this.lit.length && this.endLiteral(i)) return this.stopAt(i);
          break;
        case S.Word:
          if (isLetter(c)) {
            this.lit += buf[i];
            i++;
            break;
          }
          if (!isLiteral(this.lit)) return this.fail(i);
          if (this.endLiteral(i)) return this.stopAt(i);
          break;
        case S.Done:
          this.pos = i;
          return Ev.Done;
      }
    }
    this.pos = i;
    return this.s === S.Done ? Ev.Done : Ev.More;
  }

  /**
   * The input ended: a top-level number (or, settled, a literal) has no closing character to end
   * it, so it ends here. Returns Done when that completes the value.
   */
  endOfInput(): Ev {
    if (this.stack.length === 0 && !this.failed) {
      if (this.s === S.Num) {
        if (!this.endNumber(this.pos)) return Ev.Error;
        this.s = S.Done;
      } else if (this.s === S.Word) {
        if (!isLiteral(this.lit)) return Ev.Error;
        this.endLiteral(this.pos);
      }
    }
    return this.s === S.Done ? Ev.Done : Ev.More;
  }

  /**
   * The text that makes the captured output valid JSON when the input stops here (or broke off
   * here). Eager: a cut-off string is closed, a key left without a value gets `null`, a dangling
   * comma is dropped, a cut-off number keeps its longest valid prefix, a cut-off literal is
   * completed. Settled: a member whose value has not begun is dropped with its key, and so is a
   * number or literal that is not complete; a cut-off string is closed. Open containers are
   * closed. Returns '' when nothing was captured yet.
   */
  close(): string {
    const o = this.o;
    const depth = this.stack.length;
    const owed = this.afterColon && depth > o.base;
    let tail = '';
    switch (this.s) {
      case S.Str:
      case S.Esc:
      case S.Hex:
        tail = o.cutString(this.strIsKey);
        break;
      case S.Colon:
        tail = o.cutAfterKey();
        break;
      case S.Value:
        tail = o.cutOwed(owed);
        break;
      case S.Num:
        tail = o.cutScalar(truncatedNumber(this.num), compactNumber(this.num, this.exact), false, owed, depth);
        break;
      case S.Lit:
      case S.Word:
        // A word followed by a letter broke off (`truex`); one at the very end is complete.
        tail = o.cutScalar(this.lit, this.s === S.Word && !this.failed && isLiteral(this.lit) ? this.lit : null, false, owed, depth);
        break;
      default:
        break;
    }
    return tail + o.closers(this.stack);
  }

  /** Stops the scan at `i` with the event for what just ended (the state says which). */
  private stopAt(i: number): Ev {
    this.pos = i;
    const s: S = this.s;
    return s === S.Done ? Ev.Done : s === S.Colon ? Ev.Key : Ev.ValueEnd;
  }

  /** Starts the value whose first character `c` is at `i`; false if no value starts with it. */
  private beginValue(c: number, i: number): boolean {
    const sp = this.spelling;
    switch (c) {
      case 0x7b:
      case 0x5b: {
        const kind = c === 0x7b ? OBJ : ARR;
        if (this.o.capturing) this.o.open(kind, this.stack.length);
        this.stack.push(kind);
        this.s = kind === OBJ ? S.ObjFirst : S.ArrFirst;
        if (sp !== null) {
          if (kind === OBJ) sp.openObject();
          sp.token(i + 1, true);
        }
        return true;
      }
      case 0x22:
        if (this.o.capturing) this.o.strOpen(this.stack.length);
        this.strIsKey = false;
        this.s = S.Str;
        if (sp !== null) sp.token(i + 1, true);
        return true;
      case 0x74:
        return this.beginLit('true', c);
      case 0x66:
        return this.beginLit('false', c);
      case 0x6e:
        return this.beginLit('null', c);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          this.num = String.fromCharCode(c);
          this.s = S.Num;
          return true;
        }
        return this.lenient && isLetter(c) && this.beginLit('', c);
    }
  }

  /** A literal starts with `c`: `lit` is the one it must be (strict), or it is a word (lenient). */
  private beginLit(lit: string, c: number): boolean {
    if (this.lenient) {
      this.lit = String.fromCharCode(c);
      this.s = S.Word;
    } else {
      this.lit = lit;
      this.litAt = 1;
      this.s = S.Lit;
    }
    return true;
  }

  private beginKey(i: number): void {
    if (this.o.capturing) this.o.keyOpen();
    this.strIsKey = true;
    this.s = S.Str;
    if (this.events && this.stack.length === 1) this.key = '';
    if (this.spelling !== null) {
      this.keyText = '';
      this.spelling.token(i + 1, true);
    }
  }

  /** A number token ended at `i`; false when it is not a JSON number. */
  private endNumber(i: number): boolean {
    const n = compactNumber(this.num, this.exact);
    if (n === null) return false;
    if (this.o.capturing) this.o.scalar(n, this.stack.length);
    if (this.spelling !== null) this.spelling.token(i, n === this.num);
    this.num = '';
    return true;
  }

  /** A literal ended at `i`; returns whether to stop. */
  private endLiteral(i: number): boolean {
    if (this.o.capturing) this.o.scalar(this.lit, this.stack.length);
    if (this.spelling !== null) this.spelling.token(i, true);
    return this.valueDone();
  }

  /** Spelling of a string unit read raw (not escaped) at `i - 1`: controls are escaped by the compact form, surrogates must pair. */
  private spellRawUnit(sp: JsonSpelling, c: number, i: number): void {
    if (c >= 0xdc00 && c <= 0xdfff && sp.high) {
      sp.high = false;
      sp.token(i, true);
    } else if (c >= 0xd800 && c <= 0xdbff && !sp.high) sp.high = true;
    else sp.freeze();
  }

  private strRun(run: string): void {
    if (this.o.capturing) {
      if (this.strIsKey) this.o.keyRun(run);
      else this.o.strRun(run);
    }
    this.gather(run);
  }

  private strUnit(c: number): void {
    if (this.o.capturing) {
      if (this.strIsKey) this.o.keyUnit(c);
      else this.o.strUnit(c);
    }
    this.gather(String.fromCharCode(c));
  }

  private gather(s: string): void {
    if (this.strIsKey) {
      if (this.events && this.stack.length === 1 && this.key.length <= KEY_LIMIT) this.key += s;
      if (this.spelling !== null) this.keyText += s;
    } else if (this.collect && !this.collectOverflow) {
      if (this.str.length + s.length > this.collectLimit) this.collectOverflow = true;
      else this.str += s;
    }
  }

  /** A string ended; returns whether the scan must stop (a key or value event, or Done). */
  private endString(): boolean {
    if (this.strIsKey) {
      if (this.o.capturing) this.o.keyClose();
      if (this.spelling !== null) this.spelling.key(this.keyText);
      this.s = S.Colon;
      if (this.events && this.stack.length === 1) {
        if (this.key.length > KEY_LIMIT) this.key = '';
        return true;
      }
      return false;
    }
    if (this.o.capturing) this.o.strClose(this.stack.length);
    return this.valueDone();
  }

  /** A scalar value ended; returns whether to stop. */
  private valueDone(): boolean {
    if (this.stack.length === 0) {
      this.s = S.Done;
      return true;
    }
    this.s = S.After;
    return this.reportEnd();
  }

  private reportEnd(): boolean {
    return this.s === S.Done || (this.events && this.stack.length === 1 && this.stack[0] === OBJ);
  }

  /** Pops container `kind` (whose closer ended at `i`); returns whether to stop. */
  private closeContainer(kind: number, i: number): boolean {
    this.stack.pop();
    if (this.o.capturing) this.o.close(kind, this.stack.length);
    if (this.spelling !== null) {
      if (kind === OBJ) this.spelling.closeObject();
      this.spelling.token(i, true);
    }
    this.s = this.stack.length === 0 ? S.Done : S.After;
    return this.reportEnd();
  }

  private fail(i: number): Ev {
    this.failed = true;
    this.pos = i;
    return Ev.Error;
  }
}

/**
 * Compact JSON of a complete text holding one JSON value (whitespace around it allowed), or null
 * when it is not one. Keys stay in written order (JSON.parse would hoist integer-like ones).
 */
export function compactJsonValue(text: string, dialect: JsonDialect): string | null {
  const sc = new JsonScanner(0, { dialect });
  sc.capture = true;
  let ev = sc.scan(text);
  if (ev === Ev.More) ev = sc.endOfInput();
  if (ev !== Ev.Done || text.slice(sc.pos).trim() !== '') return null;
  return sc.out;
}
