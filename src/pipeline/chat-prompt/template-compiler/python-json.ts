/**
 * JSON as Python's json.loads reads it, for the values chat templates print back with `tojson`:
 * vLLM parses tool-call arguments with json.loads and the request body (tool schemas) with a
 * parser that keeps every number's type and every object's key order. JavaScript's JSON.parse
 * loses both: `1.0` becomes `1`, `1e-07` prints as `1e-7`, `12345678901234567890` rounds, and
 * `{"b": 1, "2": 3}` lists "2" first. Here an integral float is a FloatBox, an int beyond 2^53 a
 * bigint, and an object with integer-like keys a PyDict.
 *
 * `parseJsonText` (the gateway's body parser) keeps JSON.parse's plain values for everything else
 * in the gateway and, when the text holds such numbers or keys, records the Python form of each
 * object and array beside it (`pythonValue` reads it back when the template context is built).
 */
import { toJSON } from './json.js';
import { FloatBox, PyDict } from './values.js';

const INTEGER_KEY = /^(0|[1-9]\d*)$/;
/** Inside a string only the closing quote and escapes matter. */
const STRING_STOP = /["\\]/g;

const STRUCTURAL = /["[\]{}]/g;

/**
 * The offset just past the container opening at `i` (a `{` or `[`), or -1 when the scan reaches
 * `stop` (or the end) first. Strings are jumped over natively (STRING_STOP).
 */
function containerEnd(s: string, i: number, stop: number): number {
  let depth = 0;
  let j = i;
  for (;;) {
    STRUCTURAL.lastIndex = j;
    const m = STRUCTURAL.exec(s);
    if (m === null || m.index >= stop) return -1;
    const at = m.index;
    const c = s.charCodeAt(at);
    if (c === 34) {
      let k = at + 1;
      for (;;) {
        STRING_STOP.lastIndex = k;
        const q = STRING_STOP.exec(s);
        if (q === null) return -1;
        if (s.charCodeAt(q.index) === 92) {
          k = q.index + 2;
          continue;
        }
        j = q.index + 1;
        break;
      }
    } else if (c === 123 || c === 91) {
      depth++;
      j = at + 1;
    } else {
      depth--;
      j = at + 1;
      if (depth === 0) return j;
    }
  }
}

class Parser {
  private i = 0;
  /** Index into `lossy` of the first offset not yet passed. */
  private li = 0;
  /**
   * @param lossy when given: the sorted offsets of every token JSON.parse would change (see
   *   lossyTokensFrom). A container holding none of them is taken from the JSON.parse value passed
   *   alongside (its Python form is the same), found by a native scan instead of being parsed.
   */
  constructor(
    private readonly s: string,
    private readonly lossy: readonly number[] | null = null,
  ) {}

  fail(): never {
    const at = this.i < this.s.length ? `at position ${this.i}` : 'at end of input';
    throw new SyntaxError(`Expecting value: ${at}`);
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  value(plain?: unknown): unknown {
    this.ws();
    const c = this.s[this.i];
    switch (c) {
      case '{':
      case '[':
        if (this.lossy && this.skipPlain()) return plain;
        return c === '{' ? this.object(plain) : this.array(plain);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      case 'N':
        return this.literal('NaN', NaN);
      case 'I':
        return this.literal('Infinity', Infinity);
      default:
        return this.number();
    }
  }

  literal(word: string, value: unknown): unknown {
    if (!this.s.startsWith(word, this.i)) this.fail();
    this.i += word.length;
    return value;
  }

  string(): string {
    const s = this.s;
    let j = this.i + 1;
    let escaped = false;
    // The regex jumps to the next quote or backslash natively: a long prompt's string (600 KB for
    // 131k tokens) was walked a char at a time, ~3 ms of the 4 ms this parse took.
    for (;;) {
      STRING_STOP.lastIndex = j;
      const m = STRING_STOP.exec(s);
      if (m === null) this.fail();
      j = m.index;
      if (s.charCodeAt(j) === 34) break;
      escaped = true;
      j += 2;
    }
    const raw = s.slice(this.i, j + 1);
    this.i = j + 1;
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  number(): unknown {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|-Infinity/y;
    m.lastIndex = this.i;
    const found = m.exec(this.s);
    if (!found) this.fail();
    this.i += found[0].length;
    const text = found[0];
    if (text === '-Infinity') return -Infinity;
    if (found[1] === undefined && found[2] === undefined) {
      const n = Number(text);
      if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
      return BigInt(text);
    }
    const x = Number(text);
    return Number.isInteger(x) ? new FloatBox(x) : x;
  }

  /**
   * At a container: when it ends before the next lossy token, moves past it and returns true.
   * The scan stops at that token, so a container that holds one costs only the way to it.
   */
  skipPlain(): boolean {
    const lossy = this.lossy!;
    while (this.li < lossy.length && lossy[this.li] < this.i) this.li++;
    const stop = this.li < lossy.length ? lossy[this.li] : this.s.length;
    const end = containerEnd(this.s, this.i, stop);
    if (end < 0) return false;
    this.i = end;
    return true;
  }

  array(plain?: unknown): unknown[] {
    this.i++;
    const out: unknown[] = [];
    const items = Array.isArray(plain) ? plain : null;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(items?.[out.length]));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail();
    }
  }

  object(plain?: unknown): unknown {
    this.i++;
    const entries = new Map<string, unknown>();
    const fields = typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : null;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return {};
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') this.fail();
      entries.set(key, this.value(fields && Object.hasOwn(fields, key) ? fields[key] : undefined));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') break;
      if (c !== ',') this.fail();
    }
    for (const key of entries.keys()) if (INTEGER_KEY.test(key) || key === '__proto__') return new PyDict(entries);
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) out[k] = v;
    return out;
  }

  parse(plain?: unknown): unknown {
    const v = this.value(plain);
    this.ws();
    if (this.i !== this.s.length) throw new SyntaxError(`Extra data: position ${this.i}`);
    return v;
  }
}

/** json.loads: Python's values, numbers and key order as written. */
export function parsePythonJson(text: string): unknown {
  return new Parser(text).parse();
}

/**
 * The scan below reads the tokens of `/"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[[{]|[\]}]/g`
 * (strings, skipped; number tokens; brackets) by hand, character by character, where a regex
 * exec per token made a match array and a substring each: 11 % of the gateway's allocated bytes
 * for a short chat request (issue 30). test/unit/python-json-scan.test.ts holds it to that regex,
 * on valid and broken JSON alike. (The unrolled string form also kept V8's backtracking stack small
 * for a string of a few million characters; the loop here needs none.)
 */
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** `.` in a regex stops at these. */
const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
/** What `\s` matches. */
const isRegexSpace = (c: number) =>
  c === 0x20 ||
  (c >= 0x09 && c <= 0x0d) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/** Past the closing quote of the string opening at `i`, or -1 where the string alternative fails there. */
function stringEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c === 0x5c) {
      if (j + 1 >= n || isLineTerminator(text.charCodeAt(j + 1))) return -1;
      j += 2;
    } else j++;
  }
  return -1;
}

/** Past the number token starting at `i` (a '-' or a digit), or -1 where none starts there. */
function numberEnd(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 0x2d) j++;
  if (!isDigit(text.charCodeAt(j))) return -1;
  while (isDigit(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 0x2e && isDigit(text.charCodeAt(j + 1))) {
    j += 2;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    let k = j + 1;
    const sign = text.charCodeAt(k);
    if (sign === 0x2b || sign === 0x2d) k++;
    if (isDigit(text.charCodeAt(k))) {
      j = k + 1;
      while (isDigit(text.charCodeAt(j))) j++;
    }
  }
  return j;
}

/** Whether the key text[from..to) (between its quotes) is `0`, `[1-9]\d*` or `__proto__`: keys JSON.parse reorders or drops. */
function isLossyKey(text: string, from: number, to: number): boolean {
  const len = to - from;
  if (len <= 0) return false;
  const first = text.charCodeAt(from);
  if (first === 0x30) return len === 1;
  if (isDigit(first)) {
    for (let k = from + 1; k < to; k++) if (!isDigit(text.charCodeAt(k))) return false;
    return true;
  }
  return len === 9 && text.startsWith('__proto__', from);
}

/**
 * Whether JSON.parse would lose anything a template could print of `text`.
 *
 * Only what sits inside a member of the top-level object counts: templates see the Python form of
 * nested values (tool schemas, tool-call arguments, chat_template_kwargs — pythonValue), never of
 * the request object itself, so a body whose only such number is a top-level scalar (the usual
 * `"temperature": 0.7`) needs no second, Python-exact parse (it cost ~9 µs a request).
 */
export function losesPythonForm(text: string): boolean {
  const scan = newLossyScan();
  lossyTokensFrom(text, 0, Infinity, scan, true);
  return scan.lossy;
}

export function newLossyScan(): LossyScan {
  return { lossy: false, stops: [], depth: 0, counts: 2 };
}

/** What a scan for lossy tokens found so far (lossyTokensFrom). */
export interface LossyScan {
  /** Whether JSON.parse loses anything (losesPythonForm). */
  lossy: boolean;
  /**
   * Offsets of the lossy tokens and of every `-0` (JSON.parse keeps -0, Python's int has no sign),
   * where keepPythonForm must parse rather than reuse the JSON.parse value: sorted.
   */
  stops: number[];
  /** Bracket nesting where the scan stopped. */
  depth: number;
  /**
   * Depth from which a lossy token counts: 2 (inside a top-level object's members) or 1 (anything
   * under a top-level array). Templates see the Python form of nested values only.
   */
  counts: number;
}

/**
 * The lossy tokens of `text` from offset `from` (a token boundary: 0 or what a previous call
 * returned), recorded in `scan`: null once the end is reached, or the offset to resume at when
 * `until` (performance.now()) passed first, so a long body can be scanned a slice at a time
 * (api/large-json-body.ts). The clock is read every 64 tokens.
 */
export function lossyTokensFrom(text: string, from: number, until: number, scan: LossyScan, firstOnly = false): number | null {
  const n = text.length;
  let count = 0;
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i);
    let end: number;
    if (c === 0x22) {
      end = stringEnd(text, i);
      if (end < 0) {
        i++;
        continue;
      }
      // `(\s*:)?`: a key. Only an integer-like or __proto__ key is lossy (JSON.parse reorders/drops it).
      let k = end;
      while (k < n && isRegexSpace(text.charCodeAt(k))) k++;
      if (k < n && text.charCodeAt(k) === 0x3a) {
        if (isLossyKey(text, i + 1, end - 1)) {
          // Stops at every depth (the re-parse then matches parsePythonJson's), lossy only nested.
          if (scan.depth >= scan.counts) {
            scan.lossy = true;
            if (firstOnly) return null;
          }
          scan.stops.push(i);
        }
        end = k + 1;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (scan.depth === 0 && c === 0x5b) scan.counts = 1;
      scan.depth++;
      end = i + 1;
    } else if (c === 0x7d || c === 0x5d) {
      scan.depth--;
      end = i + 1;
    } else if (c === 0x2d || isDigit(c)) {
      end = numberEnd(text, i);
      if (end < 0) {
        i++;
        continue;
      }
      let lossy = end - i > 15;
      for (let k = i; !lossy && k < end; k++) {
        const d = text.charCodeAt(k);
        lossy = d === 0x2e || d === 0x65 || d === 0x45;
      }
      if (lossy) {
        if (scan.depth >= scan.counts) {
          scan.lossy = true;
          if (firstOnly) return null;
        }
        scan.stops.push(i);
      } else if (end - i === 2 && c === 0x2d && text.charCodeAt(i + 1) === 0x30) {
        // -0: JSON.parse keeps the sign, Python's int has none.
        scan.stops.push(i);
      }
    } else {
      i++;
      continue;
    }
    i = end;
    if ((++count & 63) === 0 && performance.now() >= until) return i;
  }
  return null;
}

/** The Python form of each parsed object/array, keyed by the JSON.parse value it stands beside. */
const PYTHON_FORM = new WeakMap<object, unknown>();

function pair(plain: unknown, python: unknown): void {
  // `python` is `plain` itself where the parse took a container without lossy tokens as it was.
  if (typeof plain !== 'object' || plain === null || plain === python) return;
  PYTHON_FORM.set(plain, python);
  if (Array.isArray(plain)) {
    const items = python as unknown[];
    for (let i = 0; i < plain.length; i++) pair(plain[i], items[i]);
    return;
  }
  const get = python instanceof PyDict ? (k: string) => python.m.get(k) : (k: string) => (python as Record<string, unknown>)[k];
  for (const [k, v] of Object.entries(plain)) pair(v, get(k));
}

/** JSON.parse, plus the Python form of what JSON.parse loses (see pythonValue). */
export function parseJsonText(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (typeof value === 'object' && value !== null && losesPythonForm(text)) pair(value, parsePythonJson(text));
  return value;
}

/**
 * Records the Python form of `value` (JSON.parse of `text`), as parseJsonText does when it must,
 * given LossyScan.stops (lossyTokensFrom): only the containers on the way to a stop
 * are parsed again (a long conversation's 2,000 messages are not, when only `temperature` is lossy).
 */
export function keepPythonForm(value: unknown, text: string, stops: readonly number[]): void {
  const parser = new Parser(text, stops);
  pair(value, parser.parse(value));
}

/**
 * The value a template sees for a parsed JSON value: its recorded Python form when the body
 * parser kept one, else the value itself (a JS number is an int when integral, else a float).
 */
export function pythonValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  return PYTHON_FORM.get(v) ?? v;
}

/** A value with its Python form substituted at every level where one was recorded. */
function pythonDeep(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const recorded = PYTHON_FORM.get(v);
  if (recorded !== undefined) return recorded;
  if (Array.isArray(v)) return v.map(pythonDeep);
  if (v instanceof FloatBox || v instanceof PyDict) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = pythonDeep(x);
  return out;
}

/** `v` (parsed request JSON) as the JSON text of its Python form, for parsePythonJson elsewhere. */
export function pythonJsonText(v: unknown): string {
  return toJSON(pythonDeep(v), null, false, [',', ':'], false);
}
