/**
 * The three ways the interpreter turns a value into text, which differ in details templates can see:
 *
 * - `display`: RuntimeValue.toString(), used for `{{ x }}` output and for array elements joined
 *   by JS (a null prints `undefined` there because NullValue holds no JS value);
 * - `jsString`: String(runtimeValue.value), used by `~`, `+` with a string, raise_exception and
 *   the `join` filter (a float 2.0 gives `2`, an object gives `[object Map]`);
 * - printing a statement's value skips none and undefined entirely (`printed`).
 */
import { toJSON } from './json.js';
import { FloatBox, Kind, fallback, kindOf } from './values.js';

/** FloatValue.toString: integral floats keep a `.0`, and -0 prints as `-0.0`. */
export function floatText(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  return x % 1 === 0 ? x.toFixed(1) : x.toString();
}

/** RuntimeValue.toString() of a value. */
export function display(v: unknown): string {
  switch (kindOf(v)) {
    case Kind.String:
      return v as string;
    case Kind.Integer:
    case Kind.Boolean:
      return String(v);
    case Kind.Float:
      return floatText(typeof v === 'number' ? v : (v as FloatBox).v);
    case Kind.Undefined:
    case Kind.Null:
      return 'undefined';
    case Kind.Array:
    case Kind.Tuple:
    case Kind.Object:
    case Kind.Namespace:
    case Kind.Kwargs:
      // toJSON refuses tuples and keyword arguments with the interpreter's message.
      return toJSON(v, null, false, null, false, 0, false);
    case Kind.Function:
      return fallback('function printed as text');
  }
}

/** What `{{ v }}` appends: nothing for none/undefined, else display(v). */
export function printed(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return display(v);
}

/** String(runtimeValue.value). */
export function jsString(v: unknown): string {
  switch (kindOf(v)) {
    case Kind.String:
      return v as string;
    case Kind.Integer:
    case Kind.Float:
      return String(typeof v === 'number' ? v : (v as FloatBox).v);
    case Kind.Boolean:
      return v ? 'true' : 'false';
    case Kind.Undefined:
    case Kind.Null:
      return 'undefined';
    case Kind.Array:
    case Kind.Tuple: {
      // Array.prototype.toString on RuntimeValues: each element's own toString(), joined by ','.
      const items = v as unknown[];
      let out = '';
      for (let i = 0; i < items.length; i++) out += (i > 0 ? ',' : '') + display(items[i]);
      return out;
    }
    case Kind.Object:
    case Kind.Namespace:
    case Kind.Kwargs:
      return '[object Map]';
    case Kind.Function:
      return fallback('function converted to text');
  }
}
