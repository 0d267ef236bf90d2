/**
 * The string and number spellings of `JSON.stringify`, for parsers that write compact JSON a
 * character at a time (request-pipeline §11.3: arguments are `JSON.stringify(JSON.parse(raw))`).
 * Writing it ourselves lets a streamed call's arguments be sent as soon as each character is read,
 * without re-serializing the whole value per delta.
 */

const HEX = '0123456789abcdef';

/** `JSON.stringify`'s escape for one UTF-16 code unit that needs one (quote, backslash, control, lone surrogate). */
export function escapeUnit(c: number): string {
  switch (c) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    case 0x08:
      return '\\b';
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0c:
      return '\\f';
    case 0x0d:
      return '\\r';
    default:
      return '\\u' + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
  }
}

/** Whether a code unit cannot be written as itself inside a JSON string (surrogates are checked apart). */
export function needsEscape(c: number): boolean {
  return c === 0x22 || c === 0x5c || c < 0x20;
}

export function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

export function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Writes decoded string content as the inside of a JSON string, the way `JSON.stringify` does. A
 * high surrogate is held until the next unit shows whether it is half of a pair (written as is) or
 * alone (escaped), so a partial write is always a prefix of the final one.
 */
export class JsonStringWriter {
  private high = -1;

  /** The escaped form of `s` (some of it may be held back). */
  write(s: string): string {
    let out = '';
    let runStart = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (this.high === -1 && !needsEscape(c) && (c < 0xd800 || c > 0xdfff)) continue;
      out += s.slice(runStart, i) + this.unit(c);
      runStart = i + 1;
    }
    return runStart === 0 && this.high === -1 ? s : out + s.slice(runStart);
  }

  /** One code unit. */
  unit(c: number): string {
    if (this.high !== -1) {
      const h = this.high;
      this.high = -1;
      if (isLowSurrogate(c)) return String.fromCharCode(h, c);
      return escapeUnit(h) + this.unit(c);
    }
    if (isHighSurrogate(c)) {
      this.high = c;
      return '';
    }
    if (isLowSurrogate(c) || needsEscape(c)) return escapeUnit(c);
    return String.fromCharCode(c);
  }

  /** The string ends: whatever is held, escaped. */
  end(): string {
    if (this.high === -1) return '';
    const h = this.high;
    this.high = -1;
    return escapeUnit(h);
  }

  /** The string is cut off (truncated output): a held high surrogate is dropped. */
  drop(): void {
    this.high = -1;
  }
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The compact spelling of a JSON number token, or null when the token is not a JSON number. With
 * `exactIntegers` an integer keeps all its digits (a double would round it past 2^53; the
 * token-format parsers pin that), else it is `JSON.stringify(Number(token))` as §11.3 writes it.
 */
export function compactNumber(token: string, exactIntegers = false): string | null {
  if (!JSON_NUMBER.test(token)) return null;
  if (exactIntegers && isIntegerToken(token)) return token === '-0' ? '0' : token;
  return JSON.stringify(Number(token)); // non-finite (1e999) → "null", as JSON.stringify does
}

function isIntegerToken(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
  }
  return true;
}

/** The longest prefix of a cut-off number token that is itself a number, compacted ('' if none). */
export function truncatedNumber(token: string): string {
  const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(token);
  return m ? JSON.stringify(Number(m[0])) : '';
}
