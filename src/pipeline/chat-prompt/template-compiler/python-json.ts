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

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

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

  value(): unknown {
    this.ws();
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
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

  array(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail();
    }
  }

  object(): unknown {
    this.i++;
    const entries = new Map<string, unknown>();
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
      entries.set(key, this.value());
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

  parse(): unknown {
    const v = this.value();
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
 * Strings (skipped) and number tokens: a number JSON.parse would change, or an integer-like key.
 * The string branch is the unrolled `"[^"\\]*(?:\\.[^"\\]*)*"`, not `"(?:[^"\\]|\\.)*"`: V8's
 * backtracking keeps a stack entry per iteration of an alternation, so a string of a few million
 * characters (a 28 MB prompt) overflowed the stack and the body was refused as malformed JSON.
 */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Whether JSON.parse would lose anything a template could print of `text`. */
export function losesPythonForm(text: string): boolean {
  return losesPythonFormFrom(text, 0, Infinity) as boolean;
}

/**
 * `losesPythonForm` from offset `from` (a token boundary: 0 or what a previous call returned):
 * true/false once settled, or the offset to resume at when `until` (performance.now()) passed
 * first, so a long body can be scanned a slice at a time (api/large-json-body.ts). The clock is
 * read every 64 tokens.
 */
export function losesPythonFormFrom(text: string, from: number, until: number): boolean | number {
  TOKENS.lastIndex = from;
  let n = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    const t = m[0];
    if (t.charCodeAt(0) === 34) {
      if (m[1] !== undefined && /^"(0|[1-9]\d*|__proto__)"/.test(t)) return true;
    } else if (t.includes('.') || t.includes('e') || t.includes('E') || t.length > 15) return true;
    if ((++n & 63) === 0 && performance.now() >= until) return TOKENS.lastIndex;
  }
  return false;
}

/** The Python form of each parsed object/array, keyed by the JSON.parse value it stands beside. */
const PYTHON_FORM = new WeakMap<object, unknown>();

function pair(plain: unknown, python: unknown): void {
  if (typeof plain !== 'object' || plain === null) return;
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

/** Records the Python form of `value` (JSON.parse of `text`), as parseJsonText does when it must. */
export function keepPythonForm(value: unknown, text: string): void {
  pair(value, parsePythonJson(text));
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
