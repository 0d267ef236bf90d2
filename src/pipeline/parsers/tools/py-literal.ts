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
 */
import { truncatedNumber } from './compact-writer.js';
import { PyStringReader } from './py-string.js';
import { cutName, IDENT_LIMIT, isDigit, isIdentChar, isIdentStart, isWs, nameValue, pyNumber, STRING_PREFIXES } from './py-tokens.js';

export { isIdentChar, isIdentStart } from './py-tokens.js';

export const enum PyEv {
  More,
  Done,
  Error,
}

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

const KWARGS = 1;
const LIST = 2;
const TUPLE = 3;
const DICT = 4;

export class PyScanner {
  pos: number;
  out = '';
  private s: P;
  private failed = false;
  private readonly stack: number[] = [];
  private str: PyStringReader | null = null;
  private pendingComma = false;
  /** In a position where a container may close (just opened, or after a comma). */
  private canClose = false;
  /** The value being read is a dict key. */
  private asKey = false;
  /** A value is owed (after `=` or `:`): a cut-off there writes null. */
  private owed = false;
  private ident = '';
  private negative = false;
  private num = '';

  /** `kwargs`: read `name=value, …)` (just after a call's `(`) into an object; else one value. */
  constructor(pos: number, kwargs: boolean) {
    this.pos = pos;
    if (kwargs) {
      this.stack.push(KWARGS);
      this.out = '{';
      this.s = P.KwName;
      this.canClose = true;
    } else this.s = P.Value;
  }

  rebase(n: number): void {
    this.pos -= n;
  }

  scan(buf: string, end = buf.length): PyEv {
    if (this.failed) return PyEv.Error;
    let i = this.pos;
    while (i < end) {
      const c = buf.charCodeAt(i);
      if (this.s === P.Done) break;
      const r = this.char(c, buf, i);
      if (r < 0) {
        this.failed = true;
        this.pos = i;
        return PyEv.Error;
      }
      i += r;
    }
    this.pos = i;
    return this.s === P.Done ? PyEv.Done : PyEv.More;
  }

  /** The input ended: a top-level value (not kwargs) that is a number or name ends here. */
  endOfInput(): PyEv {
    if (this.failed) return PyEv.Error;
    if (this.stack.length === 0 && (this.s === P.Num || this.s === P.Ident || this.s === P.IdentEnd)) {
      if (!this.endScalar()) return PyEv.Error;
    } else if (this.s === P.Str && (this.str as PyStringReader).endOfInput()) this.drainString();
    return this.s === P.Done ? PyEv.Done : PyEv.More;
  }

  /** Text that makes the output valid JSON if the input stops here (see JsonScanner.close). */
  close(): string {
    let tail = '';
    const comma = this.pendingComma ? ',' : '';
    switch (this.s) {
      case P.Str:
        (this.str as PyStringReader).cut();
        tail = this.asKey ? '":null' : '"';
        break;
      case P.Ident:
      case P.IdentEnd:
        tail = this.asKey ? comma + JSON.stringify(this.ident) + ':null' : comma + cutName(this.ident);
        break;
      case P.Num: {
        const n = truncatedNumber((this.negative ? '-' : '') + this.num.replace(/_/g, ''));
        if (n !== '') tail = this.asKey ? comma + JSON.stringify(n) + ':null' : comma + n;
        else if (this.owed) tail = 'null';
        break;
      }
      case P.Value:
      case P.Sign:
        if (this.owed) tail = 'null';
        break;
      case P.DictColon:
        tail = ':null';
        break;
      default:
        break;
    }
    for (let d = this.stack.length - 1; d >= 0; d--) tail += this.stack[d] === LIST || this.stack[d] === TUPLE ? ']' : '}';
    return tail;
  }

  private write(s: string): void {
    if (this.pendingComma) {
      this.out += ',';
      this.pendingComma = false;
    }
    this.out += s;
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
        this.write(JSON.stringify(this.ident) + ':');
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
        this.write(':');
        this.beginValue(false);
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
      this.write(c === 0x7b ? '{' : '[');
      this.stack.push(c === 0x5b ? LIST : c === 0x28 ? TUPLE : DICT);
      if (c === 0x7b) this.beginValue(true);
      else this.beginValue(false);
      this.owed = false;
      this.canClose = true;
      return 1;
    }
    return -1;
  }

  private beginString(q: number, raw: boolean): void {
    this.str = new PyStringReader(q, raw);
    this.write('"');
    this.s = P.Str;
  }

  private strChar(c: number, buf: string, i: number): number {
    const str = this.str as PyStringReader;
    const used = str.char(c, buf, i);
    this.drainString();
    return used;
  }

  private drainString(): void {
    const str = this.str as PyStringReader;
    this.out += str.out;
    str.out = '';
    if (str.done) {
      this.out += '"';
      this.str = null;
      this.afterValue();
    }
  }

  /** A name or number value ends; returns false if it is not valid. */
  private endScalar(): boolean {
    let v: string | null;
    if (this.s === P.Num) v = pyNumber(this.num, this.negative);
    else v = nameValue(this.ident);
    if (v === null) return false;
    if (this.asKey) v = v.startsWith('"') ? v : JSON.stringify(v);
    this.write(v);
    this.afterValue();
    return true;
  }

  private afterValue(): void {
    this.owed = false;
    if (this.stack.length === 0) {
      this.s = P.Done;
      return;
    }
    if (this.asKey) {
      this.asKey = false;
      this.s = P.DictColon;
      return;
    }
    this.s = P.After;
  }

  private afterChar(c: number): number {
    if (isWs(c)) return 1;
    const top = this.stack[this.stack.length - 1];
    if (c === 0x2c) {
      this.pendingComma = true;
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
    this.pendingComma = false;
    this.out += kind === LIST || kind === TUPLE ? ']' : '}';
    if (this.stack.length === 0) this.s = P.Done;
    else {
      this.asKey = false;
      this.s = P.After;
    }
    return true;
  }
}

/** A whole Python literal as compact JSON, or null when the text is not one. */
export function pyLiteralToJson(text: string): string | null {
  const sc = new PyScanner(0, false);
  let ev = sc.scan(text);
  if (ev === PyEv.More) ev = sc.endOfInput();
  if (ev !== PyEv.Done) return null;
  for (let i = sc.pos; i < text.length; i++) if (!isWs(text.charCodeAt(i))) return null;
  return sc.out;
}
