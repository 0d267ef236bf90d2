/**
 * What JsonScanner learns about the spelling of the text it reads, for Harmony call arguments
 * (src/pipeline/harmony/call-args.ts), which stream the raw text and may only send the part both
 * possible outcomes agree on:
 *
 * - `canonical`: how long a prefix is already written exactly as `JSON.stringify(JSON.parse(text))`
 *   would write it. It ends at the first token the compact form spells differently: whitespace
 *   between tokens, an escape `JSON.stringify` would not use (`\/`, `\u00e9`, a surrogate-pair
 *   escape, upper-case hex), a number it prints differently (`1.0`, `1e5`, `-0`). A number counts
 *   once it is complete; a raw high surrogate once its low half follows.
 * - `faithful`: false once parsing would move text around, so that the compact form would
 *   contradict a streamed prefix even where the spellings agree: a key repeated in one object
 *   (`JSON.parse` keeps the last value at the first key's place) or an integer-like key JS hoists
 *   to the front of its object (`{"b":1,"1":2}` serializes as `{"1":2,"b":1}`).
 *
 * The scanner stops at a syntax error, so on invalid JSON `canonical` stops there too; Harmony
 * then reports the text verbatim, of which the canonical prefix is always a prefix.
 */

/** Keys of one open object, in the order JS would list them. */
interface KeyOrder {
  keys: Set<string>;
  sawNamedKey: boolean;
  lastIndexKey: number;
}

/** The largest array index; integer keys up to it are hoisted by JS objects. */
const MAX_INDEX = 4294967294;
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

export class JsonSpelling {
  canonical = 0;
  faithful = true;
  /** Added to the scanner's positions (a caller that scans each delta on its own sets it to the text before). */
  offset = 0;
  /** A raw high surrogate was read and its low half has not come yet. */
  high = false;
  private frozen = false;
  private readonly objects: KeyOrder[] = [];

  /** Everything up to `end` is spelled canonically. */
  mark(end: number): void {
    if (!this.frozen) this.canonical = this.offset + end;
  }

  /** A token spelled differently from the compact form: nothing after it is canonical. */
  freeze(): void {
    this.frozen = true;
  }

  /** A token that is canonical exactly when `ok`, ending at `end`. */
  token(end: number, ok: boolean): void {
    if (ok && !this.high) this.mark(end);
    else this.freeze();
  }

  openObject(): void {
    this.objects.push({ keys: new Set(), sawNamedKey: false, lastIndexKey: -1 });
  }

  closeObject(): void {
    this.objects.pop();
  }

  /** A key (decoded) of the innermost open object. */
  key(key: string): void {
    const top = this.objects[this.objects.length - 1];
    if (top === undefined) return;
    if (top.keys.has(key)) this.faithful = false;
    top.keys.add(key);
    if (INDEX_KEY.test(key) && Number(key) <= MAX_INDEX) {
      // JS lists integer keys first, ascending: any other written order is rewritten by JSON.parse.
      if (top.sawNamedKey || Number(key) < top.lastIndexKey) this.faithful = false;
      top.lastIndexKey = Number(key);
    } else top.sawNamedKey = true;
  }
}
