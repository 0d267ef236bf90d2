/**
 * transformers' `tojson` filter: Python's `json.dumps(x, ensure_ascii=False, indent=None,
 * separators=None, sort_keys=False)` (chat_template_utils.py). Separators default to `", "` /
 * `": "` (`","` between items when indenting), floats print as Python's repr (`1.0`, `1e-07`),
 * ints of any size, ensure_ascii escapes everything outside U+0020–U+007E, and a value json.dumps
 * cannot serialize (Undefined, a namespace, a function) raises TypeError.
 */
import { cmpStr, fail, floatRepr, pyStr, pyTypeName } from './py.js';
import { FloatBox, Kind, kindOf, seqTag, type PyDict } from './values.js';

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const NEEDS_ESCAPE_ASCII = /["\\\u0000-\u001f\u007f-\uffff]/;

function escapeUnit(c: string): string {
  return ESCAPES[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
}

export function quote(s: string, ensureAscii: boolean): string {
  if (!(ensureAscii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return '"' + s + '"';
  // Per UTF-16 unit: an astral character becomes its surrogate pair, as Python writes it.
  return '"' + s.replace(ensureAscii ? /["\\\u0000-\u001f\u007f-\uffff]/g : /["\\\u0000-\u001f]/g, escapeUnit) + '"';
}

interface Style {
  readonly indent: string | null;
  readonly ensureAscii: boolean;
  readonly itemSep: string;
  readonly keySep: string;
  readonly sortKeys: boolean;
}

function floatJson(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return floatRepr(x);
}

/** A dict key as json.dumps writes it: str as is, int/float/bool/None converted. */
function keyText(k: string): string {
  return k;
}

export function toJSON(
  v: unknown,
  indent: number | string | null,
  ensureAscii: boolean,
  separators: readonly [string, string] | null,
  sortKeys: boolean,
): string {
  const unit = indent === null ? null : typeof indent === 'number' ? ' '.repeat(Math.max(indent, 0)) : indent;
  const style: Style = {
    indent: unit,
    ensureAscii,
    itemSep: separators ? separators[0] : unit !== null ? ',' : ', ',
    keySep: separators ? separators[1] : ': ',
    sortKeys,
  };
  return write(v, style, 0);
}

function write(v: unknown, style: Style, depth: number): string {
  switch (typeof v) {
    case 'string':
      return quote(v, style.ensureAscii);
    case 'number':
      return Number.isInteger(v) ? pyStr(v) : floatJson(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    const tag = seqTag(v);
    if (tag) return fail(`Object of type ${tag.kind} is not JSON serializable`);
    return list(v, style, depth);
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return plainDict(v as Record<string, unknown>, style, depth);
  if (v instanceof FloatBox) return floatJson(v.v);
  if (kindOf(v) === Kind.Object) return mapDict((v as PyDict).m, style, depth);
  return fail(`Object of type ${pyTypeName(v)} is not JSON serializable`);
}

function indents(style: Style, depth: number): [string, string] {
  const unit = style.indent;
  if (unit === null) return ['', ''];
  const base = '\n' + unit.repeat(depth);
  return [base, base + unit];
}

function list(v: readonly unknown[], style: Style, depth: number): string {
  if (v.length === 0) return '[]';
  const [base, child] = indents(style, depth);
  let out = '';
  for (let i = 0; i < v.length; i++) {
    if (i > 0) out += style.itemSep;
    out += child + write(v[i], style, depth + 1);
  }
  return '[' + out + base + ']';
}

function entries(keys: string[], get: (k: string) => unknown, style: Style, depth: number): string {
  if (keys.length === 0) return '{}';
  if (style.sortKeys) keys.sort(cmpStr);
  const [base, child] = indents(style, depth);
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (i > 0) out += style.itemSep;
    out += child + quote(key, style.ensureAscii) + style.keySep + write(get(key), style, depth + 1);
  }
  return '{' + out + base + '}';
}

function plainDict(v: Record<string, unknown>, style: Style, depth: number): string {
  return entries(Object.keys(v), (k) => v[k], style, depth);
}

function mapDict(m: ReadonlyMap<string, unknown>, style: Style, depth: number): string {
  return entries([...m.keys()], (k) => m.get(k), style, depth);
}
