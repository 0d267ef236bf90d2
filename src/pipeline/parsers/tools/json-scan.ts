/**
 * A resumable JSON scanner for streamed tool calls. It reads one JSON value out of a growing
 * buffer, a character once each, and stops where the caller must decide something:
 *
 * - with `events` on and the value an object, at each top-level key, at the first character of
 *   each top-level value and at its end (how `{"name": …, "arguments": …}` calls are read);
 * - when the value is complete (`Done`), malformed (`Error`), or the input runs out (`More`).
 *
 * While `capture` is on it writes the compact form (`JSON.stringify(JSON.parse(raw))`) of what it
 * reads to `out`, as it reads it, so argument diffs are final the moment they are produced; `close()`
 * gives the text that makes a cut-off capture valid JSON. With `collect` on it gathers the decoded
 * content of the current string into `str` (a call's name). Raw control characters inside strings
 * are accepted and written escaped (models do write literal newlines in JSON strings); everything
 * else follows RFC 8259. Duplicate keys are kept as written (JSON.parse would keep the last).
 */
import { hexDigit, isJsonNumberChar as isNumChar, isJsonWs as isWs, jsonEscape } from './char-class.js';
import { compactNumber, JsonStringWriter, truncatedNumber } from './compact-writer.js';

export const enum Ev {
  More,
  Key,
  ValueStart,
  ValueEnd,
  Done,
  Error,
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
  Done,
}

const OBJ = 1;
const ARR = 2;
const KEY_LIMIT = 256;

export class JsonScanner {
  /** Index in the buffer of the next character to read. */
  pos: number;
  /** Compact JSON written while `capture` was on; the caller drains it. */
  out = '';
  /** The last top-level key (events mode); '' when it was too long to matter. */
  key = '';
  /** Decoded content of the current string while `collect` is on. */
  str = '';
  collect = false;
  collectLimit = Number.POSITIVE_INFINITY;
  /** True when `str` stopped growing at `collectLimit`. */
  collectOverflow = false;

  private s = S.Value;
  /** Set by a syntax error; `s` keeps the state the error happened in, for `close()`. */
  private failed = false;
  private readonly stack: number[] = [];
  private readonly events: boolean;
  private startReported = false;
  private strIsKey = false;
  private hexLeft = 0;
  private hexVal = 0;
  private num = '';
  private lit = '';
  private litAt = 0;
  private afterColon = false;
  private capturing = false;
  private captureBase = 0;
  private pendingComma = false;
  private readonly writer = new JsonStringWriter();

  constructor(pos: number, events = false) {
    this.pos = pos;
    this.events = events;
  }

  get done(): boolean {
    return this.s === S.Done;
  }

  /** A scanner placed inside an array, just after one of its elements (for skipping the rest). */
  static afterArrayElement(pos: number): JsonScanner {
    const sc = new JsonScanner(pos);
    sc.stack.push(ARR);
    sc.s = S.After;
    return sc;
  }

  /** Start or stop writing compact output (at a value boundary: a `ValueStart`/`ValueEnd` stop, or before the first character). */
  set capture(on: boolean) {
    this.capturing = on;
    this.captureBase = this.stack.length;
    this.pendingComma = false;
  }

  get capture(): boolean {
    return this.capturing;
  }

  /** Moves the scanner's position after the caller dropped `n` characters from the buffer's front. */
  rebase(n: number): void {
    this.pos -= n;
  }

  /** Reads `buf` from `pos` up to `end` (default: all of it); see the file comment for the stops. */
  scan(buf: string, end = buf.length): Ev {
    if (this.failed) return Ev.Error;
    let i = this.pos;
    while (i < end) {
      const c = buf.charCodeAt(i);
      // Whitespace between tokens (the states up to ArrFirst) is skipped; in the others it matters.
      if (this.s <= S.ArrFirst && isWs(c)) {
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
          if (!this.beginValue(c)) return this.fail(i);
          i++;
          break;
        case S.ObjFirst:
        case S.ObjKey:
          if (c === 0x22) {
            this.beginKey();
            i++;
          } else if (c === 0x7d && this.s === S.ObjFirst) {
            i++;
            this.closeContainer(OBJ);
            if (this.reportEnd()) {
              this.pos = i;
              return this.stopEvent();
            }
          } else return this.fail(i);
          break;
        case S.Colon:
          if (c !== 0x3a) return this.fail(i);
          if (this.capturing) this.out += ':';
          this.s = S.Value;
          this.afterColon = true;
          this.startReported = false;
          i++;
          break;
        case S.After:
          if (c === 0x2c) {
            i++;
            if (this.capturing && this.stack.length > this.captureBase) this.pendingComma = true;
            if (this.stack[this.stack.length - 1] === OBJ) this.s = S.ObjKey;
            else {
              this.s = S.Value;
              this.afterColon = false;
            }
          } else if (c === 0x7d || c === 0x5d) {
            i++;
            if (!this.closeContainer(c === 0x7d ? OBJ : ARR)) return this.fail(i - 1);
            if (this.reportEnd()) {
              this.pos = i;
              return this.stopEvent();
            }
          } else return this.fail(i);
          break;
        case S.ArrFirst:
          if (c === 0x5d) {
            i++;
            this.closeContainer(ARR);
            if (this.reportEnd()) {
              this.pos = i;
              return this.stopEvent();
            }
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
          if (k > start) this.strRun(buf.slice(start, k));
          i = k;
          if (i === end) break;
          if (ck === 0x22) {
            i++;
            if (this.endString()) {
              this.pos = i;
              return this.stopEvent();
            }
          } else if (ck === 0x5c) {
            this.s = S.Esc;
            i++;
          } else {
            this.strUnit(ck);
            i++;
          }
          break;
        }
        case S.Esc: {
          if (c === 0x75) {
            this.s = S.Hex;
            this.hexLeft = 4;
            this.hexVal = 0;
            i++;
            break;
          }
          const u = jsonEscape(c);
          if (u < 0) return this.fail(i);
          this.s = S.Str;
          this.strUnit(u);
          i++;
          break;
        }
        case S.Hex: {
          const d = hexDigit(c);
          if (d < 0) return this.fail(i);
          this.hexVal = this.hexVal * 16 + d;
          i++;
          if (--this.hexLeft === 0) {
            this.s = S.Str;
            this.strUnit(this.hexVal);
          }
          break;
        }
        case S.Num:
          if (isNumChar(c)) {
            this.num += buf[i];
            i++;
            break;
          }
          {
            const n = compactNumber(this.num);
            if (n === null) return this.fail(i);
            this.write(n);
            this.num = '';
            if (this.valueDone()) {
              this.pos = i;
              return this.stopEvent();
            }
          }
          break;
        case S.Lit:
          if (c !== this.lit.charCodeAt(this.litAt)) return this.fail(i);
          i++;
          if (++this.litAt === this.lit.length) {
            this.write(this.lit);
            if (this.valueDone()) {
              this.pos = i;
              return this.stopEvent();
            }
          }
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
   * The input ended: a top-level number has no closing character to end it, so it ends here.
   * Returns Done when that completes the value.
   */
  endOfInput(): Ev {
    if (this.s === S.Num && this.stack.length === 0 && !this.failed) {
      const n = compactNumber(this.num);
      if (n === null) return Ev.Error;
      this.write(n);
      this.s = S.Done;
      return Ev.Done;
    }
    return this.s === S.Done ? Ev.Done : Ev.More;
  }

  /**
   * The text that makes the captured output valid JSON when the input stops here: a cut-off string
   * is closed, a key left without a value gets `null`, a dangling comma is dropped, a cut-off number
   * keeps its longest valid prefix, a cut-off literal is completed, open containers are closed.
   * Returns '' when nothing was captured yet.
   */
  close(): string {
    let tail = '';
    switch (this.s) {
      case S.Str:
      case S.Esc:
      case S.Hex:
        this.writer.drop();
        tail = this.strIsKey ? '":null' : '"';
        break;
      case S.Colon:
        tail = ':null';
        break;
      case S.Value:
        if (this.afterColon && this.stack.length > this.captureBase) tail = 'null';
        break;
      case S.Num: {
        const n = truncatedNumber(this.num);
        tail = n !== '' ? (this.pendingComma ? ',' : '') + n : this.afterColon && this.stack.length > this.captureBase ? 'null' : '';
        break;
      }
      case S.Lit:
        tail = (this.pendingComma ? ',' : '') + this.lit;
        break;
      default:
        break;
    }
    for (let d = this.stack.length - 1; d >= this.captureBase; d--) tail += this.stack[d] === OBJ ? '}' : ']';
    return tail;
  }

  /** The event for a stop after a string, value or container ended (the state says which). */
  private stopEvent(): Ev {
    const s: S = this.s;
    return s === S.Done ? Ev.Done : s === S.Colon ? Ev.Key : Ev.ValueEnd;
  }

  private write(s: string): void {
    if (!this.capturing) return;
    if (this.pendingComma) {
      this.out += ',';
      this.pendingComma = false;
    }
    this.out += s;
  }

  private beginValue(c: number): boolean {
    switch (c) {
      case 0x7b:
        this.write('{');
        this.stack.push(OBJ);
        this.s = S.ObjFirst;
        return true;
      case 0x5b:
        this.write('[');
        this.stack.push(ARR);
        this.s = S.ArrFirst;
        return true;
      case 0x22:
        this.write('"');
        this.strIsKey = false;
        this.s = S.Str;
        return true;
      case 0x74:
        return this.beginLit('true');
      case 0x66:
        return this.beginLit('false');
      case 0x6e:
        return this.beginLit('null');
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          this.num = String.fromCharCode(c);
          this.s = S.Num;
          return true;
        }
        return false;
    }
  }

  private beginLit(lit: string): boolean {
    this.lit = lit;
    this.litAt = 1;
    this.s = S.Lit;
    return true;
  }

  private beginKey(): void {
    this.write('"');
    this.strIsKey = true;
    this.s = S.Str;
    if (this.events && this.stack.length === 1) this.key = '';
  }

  private strRun(run: string): void {
    if (this.capturing) this.write(this.writer.write(run));
    this.gather(run);
  }

  private strUnit(c: number): void {
    if (this.capturing) this.write(this.writer.unit(c));
    this.gather(String.fromCharCode(c));
  }

  private gather(s: string): void {
    if (this.strIsKey) {
      if (this.events && this.stack.length === 1 && this.key.length <= KEY_LIMIT) this.key += s;
    } else if (this.collect && !this.collectOverflow) {
      if (this.str.length + s.length > this.collectLimit) this.collectOverflow = true;
      else this.str += s;
    }
  }

  /** A string ended; returns whether the scan must stop (a key or value event, or Done). */
  private endString(): boolean {
    if (this.capturing) this.write(this.writer.end() + '"');
    if (this.strIsKey) {
      this.s = S.Colon;
      if (this.events && this.stack.length === 1) {
        if (this.key.length > KEY_LIMIT) this.key = '';
        return true;
      }
      return false;
    }
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

  /** Pops the container `kind`; returns false on a mismatched closer. Leaves the state after the value. */
  private closeContainer(kind: number): boolean {
    if (this.stack[this.stack.length - 1] !== kind) return false;
    this.stack.pop();
    this.pendingComma = false;
    this.write(kind === OBJ ? '}' : ']');
    this.s = this.stack.length === 0 ? S.Done : S.After;
    return true;
  }

  private fail(i: number): Ev {
    this.failed = true;
    this.pos = i;
    return Ev.Error;
  }
}
