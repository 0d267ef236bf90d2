/**
 * A character-level, incremental JSON tokenizer for tool-call payloads that arrive in deltas.
 *
 * Why not re-parse the accumulated text on every delta (partial-json): the token-format parsers
 * must give the same items for every split of the text, including broken payloads, and must stay
 * O(delta) per push. A state machine that consumes each character exactly once produces the same
 * event sequence whatever the split, so whatever is built from the events (see
 * json-compact-writer.ts) is split-independent by construction.
 *
 * It is deliberately lenient where models are sloppy and leniency cannot change the meaning:
 * raw control characters inside strings, trailing commas, unknown escapes (kept as the escaped
 * character). With `python: true` it also reads Python literals as printed by `repr()` of
 * lists/dicts (single-quoted strings, `True`/`False`/`None`), for Sarashina.
 *
 * Anything else that is not JSON stops the tokenizer (`failed`) at the offending character, which
 * is left unconsumed; so does the end of the top-level value (`done`). Callers decide what the
 * rest of their text means.
 */

/** Receives the tokens of one JSON value, in order. */
export interface JsonSink {
  beginObject(): void;
  endObject(): void;
  beginArray(): void;
  endArray(): void;
  /** An object key (always complete). */
  key(name: string): void;
  /** A string value: begin, decoded text in pieces, end. */
  beginString(): void;
  stringChunk(text: string): void;
  endString(): void;
  /** A number, `true`, `false` or `null`, already in compact JSON form. */
  scalar(json: string): void;
}

// Tokenizer states (plain numbers: `const enum` does not survive isolatedModules).
const VALUE = 0; // expecting a value (also accepts `]` inside an array: empty array / trailing comma)
const OBJ_KEY = 1; // expecting a key or `}`
const COLON = 2;
const AFTER_VALUE = 3; // expecting `,` or a closer
const STRING = 4;
const ESCAPE = 5;
const HEX = 6;
const NUMBER = 7;
const LITERAL = 8;
const DONE = 9;
const FAILED = 10;

const IN_OBJECT = 1;
const IN_ARRAY = 2;

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INTEGER = /^-?\d+$/;

/** Compact JSON of a number literal; integers keep all their digits (JSON.parse would round past 2^53). */
export function canonicalNumber(text: string): string | null {
  if (!JSON_NUMBER.test(text)) return null;
  if (INTEGER.test(text)) return text === '-0' ? '0' : text;
  return JSON.stringify(Number(text)); // non-finite (1e999) → "null", as JSON.stringify does
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isNumberChar(c: number): boolean {
  // 0-9 + - . e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x65 || c === 0x45;
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

export class JsonTokenizer {
  private state = VALUE;
  private readonly stack: number[] = [];
  /** Quote character of the current string (`"`, or `'` in Python mode). */
  private quote = 0x22;
  private inKey = false;
  private keyText = '';
  /** Pending number / literal / hex-escape text. */
  private token = '';
  private hexLength = 0;
  private stopRequested = false;
  /** Index, within the text passed to the running `write`, of the character being processed. */
  pos = 0;

  constructor(
    private readonly sink: JsonSink,
    private readonly python = false,
  ) {}

  /** The top-level value is complete. */
  get done(): boolean {
    return this.state === DONE;
  }

  /** The input stopped being JSON; nothing more is consumed. */
  get failed(): boolean {
    return this.state === FAILED;
  }

  /** Container nesting depth (0 at top level). */
  get depth(): number {
    return this.stack.length;
  }

  /** Called from a sink callback: stop consuming after the current character. */
  stop(): void {
    this.stopRequested = true;
  }

  /**
   * Consume `text`; returns how many characters were consumed (all of them unless the value
   * ended, the input failed, or a sink asked to stop).
   */
  write(text: string): number {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.state === DONE || this.state === FAILED) return i;
      this.pos = i;
      if (this.state === STRING) i = this.scanString(text, i);
      // false: the character is re-examined in the new state (it ended a number or literal)
      else if (this.step(text.charCodeAt(i), text, i) && this.state !== FAILED) i++; // a bad character is not consumed
      if (this.stopRequested) {
        this.stopRequested = false;
        return i;
      }
    }
    return n;
  }

  /** End of input: a number or literal that was still open is complete now. */
  end(): void {
    if (this.state === NUMBER) this.finishNumber();
    else if (this.state === LITERAL) this.finishLiteral();
  }

  /** Runs of plain string characters are delivered in one piece. */
  private scanString(text: string, start: number): number {
    let i = start;
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === this.quote || c === 0x5c) break;
      i++;
    }
    if (i > start) this.stringText(text.slice(start, i));
    if (i < n && !this.stopRequested) {
      this.pos = i;
      if (text.charCodeAt(i) === 0x5c) this.state = ESCAPE;
      else this.closeString();
      i++;
    }
    return i;
  }

  /** Returns false when `c` must be re-examined in the new state. */
  private step(c: number, text: string, i: number): boolean {
    switch (this.state) {
      case VALUE:
        return this.stepValue(c);
      case OBJ_KEY:
        if (isWhitespace(c)) return true;
        if (c === 0x22 || (this.python && c === 0x27)) {
          this.quote = c;
          this.inKey = true;
          this.keyText = '';
          this.state = STRING;
        } else if (c === 0x7d) this.closeContainer(IN_OBJECT);
        else this.state = FAILED;
        return true;
      case COLON:
        if (isWhitespace(c)) return true;
        this.state = c === 0x3a ? VALUE : FAILED;
        return true;
      case AFTER_VALUE: {
        if (isWhitespace(c)) return true;
        const top = this.stack[this.stack.length - 1];
        if (c === 0x2c) this.state = top === IN_OBJECT ? OBJ_KEY : VALUE;
        else if (c === 0x7d && top === IN_OBJECT) this.closeContainer(IN_OBJECT);
        else if (c === 0x5d && top === IN_ARRAY) this.closeContainer(IN_ARRAY);
        else this.state = FAILED;
        return true;
      }
      case ESCAPE:
        this.escape(c, text[i]);
        return true;
      case HEX:
        this.token += text[i];
        if (this.token.length === this.hexLength) this.finishHex();
        return true;
      case NUMBER:
        if (isNumberChar(c)) {
          this.token += text[i];
          return true;
        }
        this.finishNumber();
        return false;
      case LITERAL:
        if (isLetter(c)) {
          this.token += text[i];
          return true;
        }
        this.finishLiteral();
        return false;
      default:
        return true;
    }
  }

  private stepValue(c: number): boolean {
    if (isWhitespace(c)) return true;
    if (c === 0x7b) {
      this.sink.beginObject();
      this.stack.push(IN_OBJECT);
      this.state = OBJ_KEY;
    } else if (c === 0x5b) {
      this.sink.beginArray();
      this.stack.push(IN_ARRAY);
      this.state = VALUE;
    } else if (c === 0x5d && this.stack[this.stack.length - 1] === IN_ARRAY) {
      this.closeContainer(IN_ARRAY);
    } else if (c === 0x22 || (this.python && c === 0x27)) {
      this.quote = c;
      this.inKey = false;
      this.sink.beginString();
      this.state = STRING;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.token = String.fromCharCode(c);
      this.state = NUMBER;
    } else if (isLetter(c)) {
      this.token = String.fromCharCode(c);
      this.state = LITERAL;
    } else {
      this.state = FAILED;
    }
    return true;
  }

  private stringText(s: string): void {
    if (this.inKey) this.keyText += s;
    else this.sink.stringChunk(s);
  }

  private closeString(): void {
    if (this.inKey) {
      this.sink.key(this.keyText);
      this.keyText = '';
      this.state = COLON;
    } else {
      this.sink.endString();
      this.valueDone();
    }
  }

  private escape(c: number, ch: string): void {
    this.state = STRING;
    switch (ch) {
      case 'n':
        return this.stringText('\n');
      case 't':
        return this.stringText('\t');
      case 'r':
        return this.stringText('\r');
      case 'b':
        return this.stringText('\b');
      case 'f':
        return this.stringText('\f');
      case 'u':
        return this.startHex(4);
    }
    if (this.python) {
      if (ch === 'x') return this.startHex(2);
      if (ch === 'U') return this.startHex(8);
      if (ch === 'v') return this.stringText('\v');
      if (ch === '0') return this.stringText('\0');
      if (c === 0x0a) return; // backslash-newline continues the line
      if (ch !== '\\' && ch !== "'" && ch !== '"') return this.stringText('\\' + ch); // Python keeps unknown escapes
    }
    this.stringText(ch);
  }

  private startHex(length: number): void {
    this.token = '';
    this.hexLength = length;
    this.state = HEX;
  }

  private finishHex(): void {
    const code = /^[0-9a-fA-F]+$/.test(this.token) ? parseInt(this.token, 16) : -1;
    if (code < 0 || code > 0x10ffff) {
      this.state = FAILED;
      return;
    }
    this.state = STRING;
    // A \uD83D\uDE00 pair arrives as two halves; the writer joins them.
    this.stringText(code <= 0xffff ? String.fromCharCode(code) : String.fromCodePoint(code));
  }

  private finishNumber(): void {
    const json = canonicalNumber(this.token);
    if (json === null) {
      this.state = FAILED;
      return;
    }
    this.sink.scalar(json);
    this.valueDone();
  }

  private finishLiteral(): void {
    const t = this.token;
    let json: string | null = null;
    if (t === 'true' || t === 'false' || t === 'null') json = t;
    else if (this.python) json = t === 'True' ? 'true' : t === 'False' ? 'false' : t === 'None' ? 'null' : null;
    if (json === null) {
      this.state = FAILED;
      return;
    }
    this.sink.scalar(json);
    this.valueDone();
  }

  private closeContainer(kind: number): void {
    this.stack.pop();
    if (kind === IN_OBJECT) this.sink.endObject();
    else this.sink.endArray();
    this.valueDone();
  }

  private valueDone(): void {
    this.state = this.stack.length === 0 ? DONE : AFTER_VALUE;
  }
}
