/**
 * Python value semantics that jinja2 templates see (the renders vLLM and transformers produce):
 * `str()` and `repr()` of values, float repr, str.isspace's whitespace set, code-point strings,
 * str.title / str.capitalize, equality and ordering. Values are held as values.ts describes
 * (undefined = jinja2's Undefined, null = None, FloatBox / non-integral number = float, number /
 * bigint = int, arrays = list, TUPLE-tagged arrays = tuple, plain objects and PyDict = dict).
 */
import { FloatBox, Kind, Kwargs, Namespace, PyDict, dictGet, dictHas, dictKeys, kindOf, num, seqTag, LoopContext } from './values.js';

/** A builtin method read as a value: equal to another read of the same method of an equal object. */
export interface BoundMethod {
  (args: unknown[]): unknown;
  methodName?: string;
  methodSelf?: unknown;
}

/** An error jinja2 itself would raise (TypeError, UndefinedError, ...): the render fails. */
export class TemplateRuntimeError extends Error {
  override name = 'TemplateRuntimeError';
}

export function fail(message: string): never {
  throw new TemplateRuntimeError(message);
}

/** float.__repr__: the shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac || '0'}`;
}

/** str() of an int held as a JS number (beyond 2^53 the lossless parse gives a bigint). */
function intStr(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** Characters repr() escapes: str.isprintable is false for them (space excepted). */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr() of a str. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case quote:
        out += '\\' + quote;
        continue;
    }
    if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0) as number;
      if (cp < 0x100) out += '\\x' + cp.toString(16).padStart(2, '0');
      else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
      else out += '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}

/** repr() of any value (what str() of a container shows for its items). */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return strRepr(v);
  if (v === undefined) return 'Undefined';
  return pyStr(v);
}

/** str() of a value, as `{{ v }}`, `~`, `|string` and `|join` give it (Undefined is ''). */
export function pyStr(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return Number.isInteger(v) ? intStr(v) : floatRepr(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'True' : 'False';
    case 'undefined':
      return '';
    case 'function':
      return '<function>';
  }
  if (v === null) return 'None';
  if (v instanceof FloatBox) return floatRepr(v.v);
  if (Array.isArray(v)) {
    const tag = seqTag(v);
    if (tag) {
      if (tag.kind === 'generator') return '<generator object>';
      if (tag.kind === 'range') return tag.step === 1 ? `range(${tag.start}, ${tag.stop})` : `range(${tag.start}, ${tag.stop}, ${tag.step})`;
      return `${tag.kind}([${v.map(pyRepr).join(', ')}])`;
    }
    const items = v.map(pyRepr);
    if (kindOf(v) === Kind.Tuple) return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
    return `[${items.join(', ')}]`;
  }
  if (v instanceof LoopContext) return `<LoopContext ${String(v.m.get('index'))}/${String(v.m.get('length'))}>`;
  if (v instanceof Namespace) return `<Namespace {${[...v.m].map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`).join(', ')}}>`;
  if (v instanceof Kwargs) return `{${[...v.m].map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  const o = v as Record<string, unknown> | PyDict;
  return `{${dictKeys(o)
    .map((k) => `${strRepr(k)}: ${pyRepr(dictGet(o, k))}`)
    .join(', ')}}`;
}

/** str.isspace's set (Unicode White_Space plus U+001C–U+001F); JavaScript's trim differs. */
const SPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
const SPACE_SET = new Set(SPACE);

export function isSpace(ch: string): boolean {
  return SPACE_SET.has(ch);
}

function isSpaceUnit(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}
const HAS_SURROGATE = /[\ud800-\udfff]/;

/** str.strip / lstrip / rstrip with Python's whitespace, or with `chars` (code points). */
export function pyStrip(s: string, chars: string | null | undefined, left: boolean, right: boolean): string {
  if (chars === null || chars === undefined) {
    // Python's whitespace is all in the BMP: a unit-by-unit scan from each end.
    let start = 0;
    let end = s.length;
    if (left) while (start < end && isSpaceUnit(s.charCodeAt(start))) start++;
    if (right) while (end > start && isSpaceUnit(s.charCodeAt(end - 1))) end--;
    return start === 0 && end === s.length ? s : s.slice(start, end);
  }
  if (!HAS_SURROGATE.test(chars)) {
    // Every character to strip is one UTF-16 unit, so none can match half of a pair.
    let start = 0;
    let end = s.length;
    if (left) while (start < end && chars.includes(s[start])) start++;
    if (right) while (end > start && chars.includes(s[end - 1])) end--;
    return start === 0 && end === s.length ? s : s.slice(start, end);
  }
  const set = new Set(chars);
  let start = 0;
  let end = s.length;
  if (left) {
    while (start < end) {
      const ch = String.fromCodePoint(s.codePointAt(start) as number);
      if (!set.has(ch)) break;
      start += ch.length;
    }
  }
  if (right) {
    while (end > start) {
      let ch = s[end - 1];
      const low = s.charCodeAt(end - 1);
      if (low >= 0xdc00 && low <= 0xdfff && end - 2 >= start) {
        const high = s.charCodeAt(end - 2);
        if (high >= 0xd800 && high <= 0xdbff) ch = s.slice(end - 2, end);
      }
      if (!set.has(ch)) break;
      end -= ch.length;
    }
  }
  return s.slice(start, end);
}

/** len() of a str: code points. */
export function strLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Code points as separate strings (a str iterated or indexed). */
export function chars(s: string): string[] {
  return Array.from(s);
}

const CASED = /\p{Cased}/u;
/** The title-case forms JavaScript's toUpperCase does not give (Latin digraphs). */
const TITLE: Record<string, string> = {
  Ǆ: 'ǅ',
  ǅ: 'ǅ',
  ǆ: 'ǅ',
  Ǉ: 'ǈ',
  ǈ: 'ǈ',
  ǉ: 'ǈ',
  Ǌ: 'ǋ',
  ǋ: 'ǋ',
  ǌ: 'ǋ',
  Ǳ: 'ǲ',
  ǲ: 'ǲ',
  ǳ: 'ǲ',
};

function titleChar(ch: string): string {
  return TITLE[ch] ?? ch.toUpperCase();
}

/** str.title(): a cased character after an uncased one is title-cased, the others lowercased. */
export function pyTitle(s: string): string {
  let out = '';
  let previousCased = false;
  for (const ch of s) {
    const cased = CASED.test(ch);
    out += cased ? (previousCased ? ch.toLowerCase() : titleChar(ch)) : ch;
    previousCased = cased;
  }
  return out;
}

/** str.capitalize() (Python 3.8+): the first character title-cased, the rest lowercased. */
export function pyCapitalize(s: string): string {
  if (s === '') return s;
  const first = String.fromCodePoint(s.codePointAt(0) as number);
  return titleChar(first) + s.slice(first.length).toLowerCase();
}

/** Numeric value of an int/float/bool for arithmetic and comparison. */
export function numeric(v: unknown): number | bigint | null {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof FloatBox) return v.v;
  return null;
}

const isDict = (v: unknown): boolean => kindOf(v) === Kind.Object;

/** Python `==`. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' || typeof b === 'string') return false;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== null && y !== null) {
    // eslint-disable-next-line eqeqeq -- number/bigint comparison by value
    return x == y;
  }
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === 'function' && typeof b === 'function') {
    const x = a as BoundMethod;
    const y = b as BoundMethod;
    return x.methodName !== undefined && x.methodName === y.methodName && pyEquals(x.methodSelf, y.methodSelf);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ta = seqTag(a);
    const tb = seqTag(b);
    if (ta?.kind === 'generator' || tb?.kind === 'generator' || ta?.kind !== tb?.kind) return false;
    if (kindOf(a) !== kindOf(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEquals(a[i], b[i])) return false;
    return true;
  }
  if (isDict(a) && isDict(b)) {
    const ka = dictKeys(a as object);
    const kb = dictKeys(b as object);
    if (ka.length !== kb.length) return false;
    for (const k of ka) {
      if (!dictHas(b as object, k) || !pyEquals(dictGet(a as object, k), dictGet(b as object, k))) return false;
    }
    return true;
  }
  return false;
}

/** Python's type name, for error messages. */
export function pyTypeName(v: unknown): string {
  switch (kindOf(v)) {
    case Kind.Undefined:
      return 'Undefined';
    case Kind.Null:
      return 'NoneType';
    case Kind.Boolean:
      return 'bool';
    case Kind.Integer:
      return 'int';
    case Kind.Float:
      return 'float';
    case Kind.String:
      return 'str';
    case Kind.Array:
      return 'list';
    case Kind.Tuple:
      return 'tuple';
    case Kind.Object:
      return 'dict';
    case Kind.Namespace:
      return 'Namespace';
    case Kind.Function:
      return 'function';
    case Kind.Kwargs:
      return 'dict';
  }
}

/** Python's string order (code points); json.ts sorts keys with it too. */
export function cmpStr(a: string, b: string): number {
  // Python compares code points; UTF-16 order differs only between astral and U+E000–U+FFFF.
  if (a === b) return 0;
  const x = Array.from(a);
  const y = Array.from(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    if (x[i] !== y[i]) return (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
  }
  return x.length - y.length;
}

/** Python ordering (`<` and sorting): numbers, strings, lists/tuples of those; else TypeError. */
export function pyCompare(a: unknown, b: unknown, op = '<'): number {
  if (a === undefined || b === undefined) fail(`'${a === undefined ? 'a' : 'b'}' is undefined`);
  if (typeof a === 'string' && typeof b === 'string') return cmpStr(a, b);
  const x = numeric(a);
  const y = numeric(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b) && kindOf(a) === kindOf(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (!pyEquals(a[i], b[i])) return pyCompare(a[i], b[i], op);
    }
    return a.length - b.length;
  }
  return fail(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** A float result of arithmetic: boxed when integral so it keeps printing as a float. */
export function floatOf(x: number): number | FloatBox {
  return Number.isInteger(x) ? new FloatBox(x) : x;
}

/** An int result: a JS number while exact, else a bigint. */
export function intOf(x: number | bigint): number | bigint {
  if (typeof x === 'bigint') return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
  return x;
}

export { num };
