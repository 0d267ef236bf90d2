/**
 * Reading one Python string literal after its opening quote, for py-literal.ts: single or triple
 * quotes, raw strings, and Python's escapes (`\n`, octal, `\x41`, `\u00e9`, `\U0001F600`, line
 * continuation; unknown escapes keep their backslash). The decoded content is handed out as it is
 * read (the scanner writes it as JSON).
 */
import { hexDigit as hexDigitImport } from './char-class.js';
import { PY_ESCAPES as ESCAPES_IMPORT } from './py-tokens.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const hexDigit = hexDigitImport;
const PY_ESCAPES = ESCAPES_IMPORT;

const enum R {
  /** Quotes right after the opening one: deciding between `''` and `'''`. */
  Opening,
  Body,
  Escape,
  EscapeDigits,
}

export class PyStringReader {
  /** Decoded content read so far (the caller drains it). */
  out = '';
  /** The closing quote(s) were read. */
  done = false;
  /** The decoded content, when kept (a key or a collected string). */
  text = '';
  private r = R.Opening;
  private quotes = 1;
  private triple = false;
  private closeRun = 0;
  private escBase = 0;
  private escLeft = 0;
  private escVal = 0;

  constructor(
    private readonly quote: number,
    private readonly raw: boolean,
    readonly keep = false,
  ) {}

  /** Reads `buf[i]` (and maybe a run after it); returns the characters used (0: reread it after `done`), or -1 on error. */
  char(c: number, buf: string, i: number): number {
    switch (this.r) {
      case R.Opening:
        if (c === this.quote) {
          if (++this.quotes === 3) {
            this.triple = true;
            this.r = R.Body;
          }
          return 1;
        }
        if (this.quotes === 2) {
          this.end();
          return 0;
        }
        this.r = R.Body;
        return this.body(c, buf, i);
      case R.Body:
        return this.body(c, buf, i);
      case R.Escape:
        return this.escape(c);
      case R.EscapeDigits:
        return this.escapeDigit(c);
    }
  }

  /** The text ended: `''` is a complete empty string. Returns whether the string is complete. */
  endOfInput(): boolean {
    if (this.r === R.Opening && this.quotes === 2) this.end();
    return this.done;
  }

  private body(c: number, buf: string, i: number): number {
    if (c === this.quote) {
      if (!this.triple || ++this.closeRun === 3) this.end();
      return 1;
    }
    if (this.closeRun > 0) {
      // Quotes that did not reach three are content.
      this.emit(String.fromCharCode(this.quote).repeat(this.closeRun));
      this.closeRun = 0;
    }
    if (c === 0x5c) {
      this.r = R.Escape;
      return 1;
    }
    let k = i;
    while (k < buf.length) {
      const ck = buf.charCodeAt(k);
      if (ck === this.quote || ck === 0x5c) break;
      k++;
    }
    this.emit(buf.slice(i, k));
    return k - i;
  }

  private escape(c: number): number {
    this.r = R.Body;
    if (this.raw) {
      this.emit('\\' + String.fromCharCode(c));
      return 1;
    }
    const s = PY_ESCAPES[c];
    if (s !== undefined) {
      this.emit(s);
      return 1;
    }
    if (c >= 0x30 && c <= 0x37) {
      this.beginDigits(8, 3);
      return 0;
    }
    const hexLen = c === 0x78 ? 2 : c === 0x75 ? 4 : c === 0x55 ? 8 : 0;
    if (hexLen > 0) {
      this.beginDigits(16, hexLen);
      return 1;
    }
    this.emit('\\' + String.fromCharCode(c));
    return 1;
  }

  private beginDigits(base: number, n: number): void {
    this.escBase = base;
    this.escLeft = n;
    this.escVal = 0;
    this.r = R.EscapeDigits;
  }

  private escapeDigit(c: number): number {
    const d = hexDigit(c);
    if (d >= 0 && d < this.escBase) {
      this.escVal = this.escVal * this.escBase + d;
      if (--this.escLeft === 0) this.endEscape();
      return 1;
    }
    // Octal escapes may be shorter than three digits; hex escapes may not.
    if (this.escBase === 16) return -1;
    this.endEscape();
    return 0;
  }

  private endEscape(): void {
    this.r = R.Body;
    this.emit(String.fromCodePoint(this.escVal > 0x10ffff ? 0xfffd : this.escVal));
  }

  private emit(s: string): void {
    if (s.length === 0) return;
    this.out += s;
    if (this.keep) this.text += s;
  }

  private end(): void {
    this.done = true;
  }
}
