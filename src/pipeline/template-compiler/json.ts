/**
 * The library's toJSON (used by `tojson`, the `string` filter and by printing containers), on
 * plain values: Python-style `", "` / `": "` separators unless indenting (then `","`), keys in
 * insertion order unless sort_keys (then localeCompare), ensure_ascii escaping every UTF-16 unit
 * from U+007F up, and undefined as `null` (tojson) or `undefined` (printing).
 */
import { FloatBox, Kind, Namespace, kindOf, typeName } from './values.js';

const NON_ASCII = /[\x7f-\uffff]/g;
/** What JSON.stringify would escape (quotes, backslashes, controls, any surrogate to be safe). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function asciiSafe(json: string): string {
  return json.replace(NON_ASCII, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function quote(s: string, ensureAscii: boolean): string {
  const json = NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
  return ensureAscii ? asciiSafe(json) : json;
}

/** The options of one tojson call, shared by the whole walk. */
interface Style {
  readonly indent: number | null;
  readonly ensureAscii: boolean;
  readonly itemSep: string;
  readonly keySep: string;
  readonly sortKeys: boolean;
  readonly undefinedToNull: boolean;
}

export function toJSON(
  v: unknown,
  indent: number | null,
  ensureAscii: boolean,
  separators: readonly [string, string] | null,
  sortKeys: boolean,
  depth: number,
  undefinedToNull: boolean,
): string {
  const style: Style = {
    indent,
    ensureAscii,
    itemSep: separators ? separators[0] : indent ? ',' : ', ',
    keySep: separators ? separators[1] : ': ',
    sortKeys,
    undefinedToNull,
  };
  return write(v, style, depth);
}

function write(v: unknown, style: Style, depth: number): string {
  switch (typeof v) {
    case 'string':
      return quote(v, style.ensureAscii);
    case 'number':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return style.undefinedToNull ? 'null' : 'undefined';
  }
  switch (kindOf(v)) {
    case Kind.Null:
      return 'null';
    case Kind.Float:
      return JSON.stringify((v as FloatBox).v);
    case Kind.Array:
    case Kind.Object:
    case Kind.Namespace:
      return container(v as object, style, depth);
    default:
      throw new Error(`Cannot convert to JSON: ${typeName(v)}`);
  }
}

function container(v: object, style: Style, depth: number): string {
  const indent = style.indent;
  let base = '';
  let child = '';
  // Only containers build the indent (a negative one throws here, as in the library).
  if (indent) {
    const unit = ' '.repeat(indent);
    base = '\n' + unit.repeat(depth);
    child = base + unit;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    let out = '';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += indent ? style.itemSep + child : style.itemSep;
      out += write(v[i], style, depth + 1);
    }
    return indent ? '[' + child + out + base + ']' : '[' + out + ']';
  }
  const map = v instanceof Namespace ? v.m : null;
  const keys = map ? [...map.keys()] : Object.keys(v);
  if (keys.length === 0) return '{}';
  if (style.sortKeys) keys.sort((a, b) => a.localeCompare(b));
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (i > 0) out += style.itemSep;
    if (indent) out += child;
    const value = map ? map.get(k) : (v as Record<string, unknown>)[k];
    out += quote(k, style.ensureAscii) + style.keySep + write(value, style, depth + 1);
  }
  return indent ? '{' + out + base + '}' : '{' + out + '}';
}
