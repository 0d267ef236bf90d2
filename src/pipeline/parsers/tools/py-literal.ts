/**
 * A resumable reader of Python literals that writes the equivalent compact JSON as it reads, for
 * `pythonic` calls (`f(a=1, b='x')` → `{"a":1,"b":"x"}`) and for qwen_xml values typed object or
 * array that a model wrote as a Python repr. Mapping (SMG crates/tool_parser/src/parsers/
 * pythonic.rs reads the same subset with a real Python parser):
 *
 * - strings in either quote, triple-quoted, with r/u/b/f prefixes; Python escapes (`\n`, `\x41`,
 *   `\u00e9`, `\U0001F600`, octal, line continuation; unknown escapes keep their backslash);
 * - ints (decimal, `_` separators, 0x/0o/0b), floats, a unary sign; True/False/None (and the JSON
 *   spellings true/false/null); any other bare name becomes its string (`unit=celsius`);
 * - lists and tuples become arrays (a parenthesized single value `(1)` too); dicts become objects
 *   whose non-string keys are written as strings (`{1: 'a'}` → `{"1":"a"}`).
 *
 * Calls, attributes, operators, sets, positional arguments and `**kwargs` are errors.
 *
 * With `events` it reads a dict the way JsonScanner reads an object for the call readers
 * (json-call.ts `ValueScanner`: stops at top-level keys and values, writes only while `capture`,
 * collects a string into `str`), for Sarashina's `{'name': …, 'arguments': {…}}` calls.
 */
import { truncatedNumber } from './compact-writer.js';
import type { CallSyntax } from './json-call.js';
import { JsonOut } from './json-out.js';
import { Ev as EvEnum } from './json-scan.js';
import { PyStringReader } from './py-string.js';
import * as tokens from './py-tokens.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const Ev = EvEnum;
type Ev = EvEnum;
const { cutName, IDENT_LIMIT, isDigit, isIdentChar, isIdentStart, isWs, nameValue, pyNumber, STRING_PREFIXES } = tokens;

export { isIdentChar, isIdentStart } from './py-tokens.js';

const enum P {
  KwName,
  KwIdent,
  KwEq,
  Value,
  Sign,
  Ident,
  IdentEnd,
  Str,
  Num,
  After,
  DictColon,
  Done,
}

// Container kinds; odd ones are written as JSON objects, even ones as arrays (json-out.ts).
const DICT = 1;
const LIST = 2;
const KWARGS = 3;
const TUPLE = 4;
const KEY_LIMIT = 256;

export class PyScanner {
  pos: number;
  /** events: the last top-level key; '' when it was too long to matter. */
  key = '';
  /** Decoded content of the current string while `collect` is on. */
  str = '';
  collect = false;
  collectLimit = Number.POSITIVE_INFINITY;
  collectOverflow = false;
  private s: P;
  private failed = false;
  private readonly stack: number[] = [];
  private reader: PyStringReader | null = null;
  /** In a position where a container may close (just opened, or after a comma). */
  private canClose = false;
  /** The value being read is a dict key. */
  private asKey = false;
  /** A value is owed (after `=` or `:`): a cut-off there writes null. */
  private owed = false;
  private ident = '';
  private negative = false;
  private num = '';
  private readonly o: JsonOut;
  /** An event to stop at after the current character (events mode). */
  private stop = Ev.More;
  private startReported = false;

  /**
   * `kwargs`: read `name=value, …)` (just after a call's `(`) into an object; else one value.
   * `events`: stop at a top-level dict's keys and values, and write only while `capture` is on.
   * `settled`: write members settled rather than eager (json-out.ts).
   */
  constructor(
    pos: number,
    kwargs: boolean,
    private readonly events = false,
    settled = false,
  ) {
    this.pos = pos;
    this.o = new JsonOut(settled);
    if (!events) this.o.capture(true, 0);
    if (kwargs) {
      this.o.open(KWARGS, 0);
      this.stack.push(KWARGS);
      this.s = P.KwName;
      this.canClose = true;
    } else this.s = P.Value;
  }

  get done(): boolean {
    return this.s === P.Done;
  }

  /** Compact JSON written while capturing; the caller drains it. */
  get out(): string {
    return this.o.text;
  }

  set out(s: string) {
    this.o.text = s;
  }

  /** Start or stop writing compact output, at a value boundary (see JsonScanner.capture). */
  set capture(on: boolean) {
    this.o.capture(on, this.stack.length);
  }

  get capture(): boolean {
    return this.o.capturing;
  }

  rebase(n: number): void {
    this.pos -= n;
  }

  scan(buf: string, end = buf.length): Ev {
    if (this.failed) return Ev.Error;
    let i = this.pos;
    while (i < end) {
      const c = buf.charCodeAt(i);
      if (this.s === P.Done) break;
      const r = this.char(c, buf, i);
      if (r < 0) {
        this.failed = true;
        this.pos = i;
        return Ev.Error;
      }
      i += r;
      if (this.stop !== Ev.More) {
        const ev = this.stop;
        this.stop = Ev.More;
        this.pos = i;
        return ev;
      }
    }
    this.pos = i;
    return this.s === P.Done ? Ev.Done : Ev.More;
  }

  /** The input ended: a top-level value (not kwargs) that is a number or name ends here. */
  endOfInput(): Ev {
    if (this.failed) return Ev.Error;
    if (this.stack.length === 0 && (this.s === P.Num || this.s === P.Ident || this.s === P.IdentEnd)) {
      if (!this.endScalar()) return Ev.Error;
    } else if (this.s === P.Str && (this.reader as PyStringReader).endOfInput()) this.drainString();
    this.stop = Ev.More;
    return this.s === P.Done ? Ev.Done : Ev.More;
  }

  /** Text that makes the output valid JSON if the input stops here (see JsonScanner.close). */
  close(): string {
    const o = this.o;
    if (!o.capturing || (this.events && this.stack.length <= o.base)) return '';
    const depth = this.stack.length;
    let tail = '';
    switch (this.s) {
      case P.Str:
        tail = o.cutString(this.asKey);
        break;
      case P.Ident:
      case P.IdentEnd:
        // A name is completed to the literal it can only begin, else kept as its string.
        tail = o.cutScalar(this.asKey ? this.ident : cutName(this.ident), cutLiteral(this.ident), this.asKey, this.owed, depth);
        break;
      case P.Num: {
        const prefix = truncatedNumber((this.negative ? '-' : '') + this.num.replace(/_/g, ''));
        tail = o.cutScalar(prefix, pyNumber(this.num, this.negative), this.asKey, this.owed, depth);
        break;
      }
      case P.Value:
      case P.Sign:
        tail = o.cutOwed(this.owed);
        break;
      case P.DictColon:
        tail = o.cutAfterKey();
        break;
      default:
        break;
    }
    return tail + o.closers(this.stack);
  }

  /** events: at the top level of the dict being read. */
  private atTop(): boolean {
    return this.events && this.stack.length === 1 && this.stack[0] === DICT;
  }

  /** A complete key (decoded) that was not written as it was read. */
  private writeKey(key: string): void {
    if (!this.o.capturing) return;
    this.o.keyOpen();
    this.o.keyRun(key);
    this.o.keyClose();
  }

  /** Handles one character; returns how many characters it used (0: reprocess in the new state), or -1 on error. */
  private char(c: number, buf: string, i: number): number {
    switch (this.s) {
      case P.KwName:
        if (isWs(c)) return 1;
        if (c === 0x29 && this.canClose) return this.closeTop(KWARGS) ? 1 : -1;
        if (!isIdentStart(c)) return -1;
        this.ident = '';
        this.s = P.KwIdent;
        return 0;
      case P.KwIdent:
        if (isIdentChar(c)) {
          if (this.ident.length >= IDENT_LIMIT) return -1;
          this.ident += buf[i];
          return 1;
        }
        this.s = P.KwEq;
        return 0;
      case P.KwEq:
        if (isWs(c)) return 1;
        if (c !== 0x3d) return -1;
        this.writeKey(this.ident);
        if (this.o.capturing) this.o.colon();
        this.beginValue(false);
        return 1;
      case P.Value:
        return this.valueChar(c, buf, i);
      case P.Sign:
        if (isWs(c)) return 1;
        if (!isDigit(c) && c !== 0x2e) return -1;
        this.num = '';
        this.s = P.Num;
        return 0;
      case P.Ident:
        if (isIdentChar(c)) {
          if (this.ident.length >= IDENT_LIMIT) return -1;
          this.ident += buf[i];
          return 1;
        }
        if ((c === 0x27 || c === 0x22) && STRING_PREFIXES.has(this.ident.toLowerCase())) {
          this.beginString(c, this.ident.toLowerCase().includes('r'));
          return 1;
        }
        this.s = P.IdentEnd;
        return 0;
      case P.IdentEnd:
        if (isWs(c)) return 1;
        if (c === 0x28 || c === 0x2e || c === 0x5b) return -1;
        return this.endScalar() ? 0 : -1;
      case P.Str:
        return this.strChar(c, buf, i);
      case P.Num:
        if (isIdentChar(c) || c === 0x2e || ((c === 0x2b || c === 0x2d) && /[eE]$/.test(this.num) && !/^0[xX]/.test(this.num))) {
          this.num += buf[i];
          return 1;
        }
        return this.endScalar() ? 0 : -1;
      case P.After:
        return this.afterChar(c);
      case P.DictColon:
        if (isWs(c)) return 1;
        if (c !== 0x3a) return -1;
        if (this.o.capturing) this.o.colon();
        this.beginValue(false);
        this.startReported = false;
        return 1;
      case P.Done:
        return 0;
    }
  }

  private beginValue(asKey: boolean): void {
    this.s = P.Value;
    this.asKey = asKey;
    this.owed = !asKey;
    this.canClose = false;
  }

  private valueChar(c: number, buf: string, i: number): number {
    if (isWs(c)) return 1;
    if (!this.asKey && !this.startReported && this.atTop()) {
      // A top-level value starts here: the caller looks at it before it is read.
      this.startReported = true;
      this.stop = Ev.ValueStart;
      return 0;
    }
    const top = this.stack[this.stack.length - 1];
    if (this.canClose && ((c === 0x5d && top === LIST) || (c === 0x29 && top === TUPLE) || (c === 0x7d && top === DICT))) {
      return this.closeTop(top) ? 1 : -1;
    }
    this.canClose = false;
    if (c === 0x27 || c === 0x22) {
      this.beginString(c, false);
      return 1;
    }
    if (isIdentStart(c)) {
      this.ident = buf[i];
      this.s = P.Ident;
      return 1;
    }
    if (c === 0x2d || c === 0x2b) {
      this.negative = c === 0x2d;
      this.s = P.Sign;
      return 1;
    }
    if (isDigit(c) || c === 0x2e) {
      this.negative = false;
      this.num = '';
      this.s = P.Num;
      return 0;
    }
    if (this.asKey) return -1;
    if (c === 0x5b || c === 0x28 || c === 0x7b) {
      const kind = c === 0x5b ? LIST : c === 0x28 ? TUPLE : DICT;
      if (this.o.capturing) this.o.open(kind, this.stack.length);
      this.stack.push(kind);
      this.beginValue(kind === DICT);
      this.owed = false;
      this.canClose = true;
      return 1;
    }
    return -1;
  }

  private beginString(q: number, raw: boolean): void {
    const keep = this.atTop() && (this.asKey || this.collect);
    this.reader = new PyStringReader(q, raw, keep);
    if (this.o.capturing) {
      if (this.asKey) this.o.keyOpen();
      else this.o.strOpen(this.stack.length);
    }
    this.s = P.Str;
  }

  private strChar(c: number, buf: string, i: number): number {
    const used = (this.reader as PyStringReader).char(c, buf, i);
    this.drainString();
    return used;
  }

  private drainString(): void {
    const str = this.reader as PyStringReader;
    const o = this.o;
    if (o.capturing && str.out.length > 0) {
      if (this.asKey) o.keyRun(str.out);
      else o.strRun(str.out);
    }
    str.out = '';
    if (!str.done) return;
    if (o.capturing) {
      if (this.asKey) o.keyClose();
      else o.strClose(this.stack.length);
    }
    this.reader = null;
    if (str.keep) {
      if (this.asKey) this.key = str.text.length <= KEY_LIMIT ? str.text : '';
      else if (str.text.length > this.collectLimit) this.collectOverflow = true;
      else this.str = str.text;
    }
    this.afterValue();
  }

  /** A name or number value ends; returns false if it is not valid. */
  private endScalar(): boolean {
    const v = this.s === P.Num ? pyNumber(this.num, this.negative) : nameValue(this.ident);
    if (v === null) return false;
    if (this.asKey) {
      // A key that is not a string is written as one (`{1: 'a'}` → `{"1":"a"}`).
      const key = v.startsWith('"') ? (JSON.parse(v) as string) : v;
      if (this.atTop()) this.key = key;
      this.writeKey(key);
    } else if (this.o.capturing) this.o.scalar(v, this.stack.length);
    this.afterValue();
    return true;
  }

  private afterValue(): void {
    this.owed = false;
    if (this.stack.length === 0) {
      this.s = P.Done;
      return;
    }
    const top = this.atTop();
    if (this.asKey) {
      this.asKey = false;
      this.s = P.DictColon;
      if (top) this.stop = Ev.Key;
      return;
    }
    this.s = P.After;
    if (top) this.stop = Ev.ValueEnd;
  }

  private afterChar(c: number): number {
    if (isWs(c)) return 1;
    const top = this.stack[this.stack.length - 1];
    if (c === 0x2c) {
      if (this.o.capturing) this.o.separator(this.stack.length);
      if (top === KWARGS) {
        this.s = P.KwName;
        this.canClose = true;
      } else {
        this.beginValue(top === DICT);
        this.owed = false;
        this.canClose = true;
      }
      return 1;
    }
    const closer = top === LIST ? 0x5d : top === DICT ? 0x7d : 0x29;
    if (c !== closer) return -1;
    return this.closeTop(top) ? 1 : -1;
  }

  private closeTop(kind: number): boolean {
    if (this.stack[this.stack.length - 1] !== kind) return false;
    this.stack.pop();
    if (this.o.capturing) this.o.close(kind, this.stack.length);
    if (this.stack.length === 0) this.s = P.Done;
    else {
      this.asKey = false;
      this.s = P.After;
      if (this.atTop()) this.stop = Ev.ValueEnd;
    }
    return true;
  }
}

/** A cut-off bare name, settled: the literal it completely is, or nothing (it may still grow). */
function cutLiteral(name: string): string | null {
  const v = nameValue(name);
  return v.startsWith('"') ? null : v;
}

/** Calls written as Python literals (Sarashina), for the call readers: members settled, as the token formats write them. */
export const PY_SYNTAX: CallSyntax = {
  scanner: (pos, events) => new PyScanner(pos, false, events, true),
  isQuote: (c) => c === 0x22 || c === 0x27,
};

/** A whole Python literal as compact JSON, or null when the text is not one. */
export function pyLiteralToJson(text: string): string | null {
  const sc = new PyScanner(0, false);
  let ev = sc.scan(text);
  if (ev === Ev.More) ev = sc.endOfInput();
  if (ev !== Ev.Done) return null;
  for (let i = sc.pos; i < text.length; i++) if (!isWs(text.charCodeAt(i))) return null;
  return sc.out;
}
