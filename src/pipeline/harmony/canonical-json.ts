/**
 * An incremental scan of JSON text that finds how long a prefix of it is already written exactly
 * as `JSON.stringify(JSON.parse(text))` would write it, in O(length) over all pushes.
 *
 * That prefix ends at the first character the compact form would spell differently: whitespace
 * between tokens, an escape `JSON.stringify` would not use (`\/`, `\u00e9`, a surrogate pair
 * escape, upper-case hex), or a number it would print differently (`1.0`, `1e5`, `-0`). A number or
 * literal counts only once it is complete; a high surrogate only with its low half.
 *
 * It also tells whether parsing could move text around, which would make the compact form
 * contradict a streamed prefix even where the spellings agree: a key repeated in one object
 * (`JSON.parse` keeps the last value at the first key's position) or an integer-like key that JS
 * hoists to the front of an object (`{"b":1,"1":2}` serializes as `{"1":2,"b":1}`).
 *
 * Syntax is not validated: whatever the scan says about invalid JSON is harmless, because invalid
 * arguments are reported verbatim and the canonical prefix is always a prefix of the text itself.
 */

interface Container {
  object: boolean;
  /** Next string in this object is a key. */
  expectKey: boolean;
  keys: Set<string> | null;
  sawNamedKey: boolean;
  lastIndexKey: number;
}

const MAX_INDEX = 4294967294;
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;
const NUMBER_CHAR = /[0-9eE.+-]/;
const SHORT_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/** Control characters `JSON.stringify` writes as `\u00xx` (the rest have short escapes). */
const isHexEscaped = (code: number): boolean => code < 0x20 && code !== 8 && code !== 9 && code !== 10 && code !== 12 && code !== 13;

export class CanonicalJsonScanner {
  /** Length of the prefix that is already in compact form. */
  canonical = 0;
  /** False once a repeated or hoisted key means parsing would reorder the text. */
  faithful = true;
  private pos = 0;
  private frozen = false;
  private readonly stack: Container[] = [];
  private inString = false;
  private key: string | null = null;

  /** Scans `text` (the whole text so far; it only ever grows) from where the last call stopped. */
  scan(text: string): void {
    const n = text.length;
    while (this.pos < n) {
      const step = this.inString ? this.stringStep(text) : this.valueStep(text);
      if (step === 0) return; // needs more text to decide
    }
  }

  private advance(count: number, canonical: boolean): number {
    this.pos += count;
    if (!this.frozen) {
      if (canonical) this.canonical = this.pos;
      else this.frozen = true;
    }
    return count;
  }

  private valueStep(text: string): number {
    const c = text[this.pos];
    const top = this.stack[this.stack.length - 1];
    switch (c) {
      case '{':
        this.stack.push({ object: true, expectKey: true, keys: new Set(), sawNamedKey: false, lastIndexKey: -1 });
        return this.advance(1, true);
      case '[':
        this.stack.push({ object: false, expectKey: false, keys: null, sawNamedKey: false, lastIndexKey: -1 });
        return this.advance(1, true);
      case '}':
      case ']':
        this.stack.pop();
        return this.advance(1, true);
      case ',':
        if (top?.object) top.expectKey = true;
        return this.advance(1, true);
      case ':':
        return this.advance(1, true);
      case '"':
        this.inString = true;
        this.key = top?.object && top.expectKey ? '' : null;
        if (top?.object) top.expectKey = false;
        return this.advance(1, true);
      case 't':
      case 'f':
      case 'n': {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
        if (text.length - this.pos < word.length) return 0;
        return text.startsWith(word, this.pos) ? this.advance(word.length, true) : this.advance(1, false);
      }
      default: {
        if (c !== '-' && !(c >= '0' && c <= '9')) return this.advance(1, false); // whitespace or junk
        let end = this.pos + 1;
        while (end < text.length && NUMBER_CHAR.test(text[end])) end++;
        if (end === text.length) return 0; // the number may go on
        const token = text.slice(this.pos, end);
        return this.advance(end - this.pos, String(Number(token)) === token);
      }
    }
  }

  private stringStep(text: string): number {
    const c = text.charCodeAt(this.pos);
    if (c === 0x22) {
      this.inString = false;
      if (this.key !== null) this.addKey(this.key);
      this.key = null;
      return this.advance(1, true);
    }
    if (c === 0x5c) return this.escapeStep(text);
    if (c >= 0xd800 && c <= 0xdbff) {
      if (this.pos + 1 >= text.length) return 0;
      const next = text.charCodeAt(this.pos + 1);
      const paired = next >= 0xdc00 && next <= 0xdfff;
      this.appendKey(text.slice(this.pos, this.pos + (paired ? 2 : 1)));
      return this.advance(paired ? 2 : 1, paired);
    }
    this.appendKey(text[this.pos]);
    // A raw control character is invalid JSON; a lone low surrogate would be escaped.
    return this.advance(1, c >= 0x20 && !(c >= 0xdc00 && c <= 0xdfff));
  }

  private escapeStep(text: string): number {
    if (this.pos + 1 >= text.length) return 0;
    const e = text[this.pos + 1];
    const short = SHORT_ESCAPES[e];
    if (short !== undefined) {
      this.appendKey(short);
      return this.advance(2, true);
    }
    if (e !== 'u') {
      if (e === '/') this.appendKey('/');
      return this.advance(2, false);
    }
    if (text.length - this.pos < 6) return 0;
    const hex = text.slice(this.pos + 2, this.pos + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) return this.advance(6, false);
    const code = parseInt(hex, 16);
    this.appendKey(String.fromCharCode(code));
    return this.advance(6, isHexEscaped(code) && hex === hex.toLowerCase());
  }

  private appendKey(s: string): void {
    if (this.key !== null) this.key += s;
  }

  private addKey(key: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top?.keys == null) return;
    if (top.keys.has(key)) this.faithful = false;
    top.keys.add(key);
    if (INDEX_KEY.test(key) && Number(key) <= MAX_INDEX) {
      // JS lists integer keys first, ascending: any other order is rewritten by JSON.parse.
      if (top.sawNamedKey || Number(key) < top.lastIndexKey) this.faithful = false;
      top.lastIndexKey = Number(key);
    } else top.sawNamedKey = true;
  }
}
