/**
 * The library's toJSON (used by `tojson`, the `string` filter and by printing containers), on
 * plain values: Python-style `", "` / `": "` separators unless indenting (then `","`), keys in
 * insertion order unless sort_keys (then localeCompare), ensure_ascii escaping every UTF-16 unit
 * from U+007F up, and undefined as `null` (tojson) or `undefined` (printing).
 */
import { FloatBox, Kind, Namespace, kindOf, typeName } from './values.js';

const NON_ASCII = /[\x7f-\uffff]/g;

function asciiSafe(json: string): string {
  return json.replace(NON_ASCII, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function quote(s: string, ensureAscii: boolean): string {
  const json = JSON.stringify(s);
  return ensureAscii ? asciiSafe(json) : json;
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
  switch (kindOf(v)) {
    case Kind.Null:
      return 'null';
    case Kind.Undefined:
      return undefinedToNull ? 'null' : 'undefined';
    case Kind.Integer:
    case Kind.Float:
      return JSON.stringify(typeof v === 'number' ? v : (v as FloatBox).v);
    case Kind.Boolean:
      return v ? 'true' : 'false';
    case Kind.String:
      return quote(v as string, ensureAscii);
    case Kind.Array:
    case Kind.Object:
    case Kind.Namespace:
      break;
    default:
      throw new Error(`Cannot convert to JSON: ${typeName(v)}`);
  }
  const itemSep = separators ? separators[0] : indent ? ',' : ', ';
  const keySep = separators ? separators[1] : ': ';
  const unit = indent ? ' '.repeat(indent) : '';
  const base = '\n' + unit.repeat(depth);
  const child = base + unit;

  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    let out = '';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += indent ? itemSep + child : itemSep;
      out += toJSON(v[i], indent, ensureAscii, separators, sortKeys, depth + 1, undefinedToNull);
    }
    return indent ? `[${child}${out}${base}]` : `[${out}]`;
  }

  let keys: string[];
  let get: (k: string) => unknown;
  if (v instanceof Namespace) {
    keys = [...v.m.keys()];
    get = (k) => v.m.get(k);
  } else {
    const o = v as Record<string, unknown>;
    keys = Object.keys(o);
    get = (k) => o[k];
  }
  if (keys.length === 0) return '{}';
  if (sortKeys) keys.sort((a, b) => a.localeCompare(b));
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (i > 0) out += itemSep;
    if (indent) out += child;
    out += quote(k, ensureAscii) + keySep + toJSON(get(k), indent, ensureAscii, separators, sortKeys, depth + 1, undefinedToNull);
  }
  return indent ? `{${out}${base}}` : `{${out}}`;
}
