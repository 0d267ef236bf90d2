/**
 * Filters, mirroring Interpreter.applyFilter branch by branch: the same operand-type dispatch, the
 * same option defaults and checks, the same error texts. `filterNamed` is `x | name`,
 * `filterCalled` is `x | name(args)` (positional arguments, then the keyword ones in a Map).
 */
import { toJSON } from './json.js';
import { objectMethod, replaceMethod, titleCase } from './methods.js';
import { compareValues } from './operators.js';
import { floatText, jsString } from './text.js';
import { TESTS, type TestFunction } from './tests.js';
import {
  FloatBox,
  Kind,
  Kwargs,
  Namespace,
  fallback,
  floatResult,
  hasOwn,
  intResult,
  kindOf,
  num,
  truthy,
  typeName,
} from './values.js';

/** A join element's text: `x.value` joined by JS, so none and undefined give ''. */
function joinText(v: unknown): string {
  return v === null || v === undefined ? '' : jsString(v);
}

/** The raw `x.value` a `unique` filter puts in its Set. */
function uniqueKey(v: unknown): unknown {
  if (v === null) return undefined;
  if (v instanceof FloatBox) return v.v;
  if (typeof v === 'function') return fallback('unique over functions');
  return v;
}

/** Truthiness of a RuntimeValue's raw JS value (what `first.value` means to `indent`). */
function heldTruthy(v: unknown): boolean {
  if (v === null) return false;
  if (v instanceof FloatBox) return v.v !== 0;
  return typeof v === 'object' || typeof v === 'function' ? true : !!v;
}

const isContainer = (v: unknown): boolean => kindOf(v) === Kind.Object || kindOf(v) === Kind.Namespace || kindOf(v) === Kind.Kwargs;

function containerGet(v: unknown, key: string): { found: boolean; value: unknown } {
  if (v instanceof Namespace) return { found: v.m.has(key), value: v.m.get(key) };
  if (v instanceof Kwargs) return fallback('keyword arguments as a filter item');
  const o = v as Record<string, unknown>;
  return hasOwn(o, key) ? { found: true, value: o[key] } : { found: false, value: undefined };
}

/** getAttributeValue: a dotted path through objects and (by decimal index) arrays. */
function attributePath(item: unknown, path: string): unknown {
  let value = item;
  for (const part of path.split('.')) {
    if (isContainer(value)) value = containerGet(value, part).value;
    else if (Array.isArray(value)) {
      const index = parseInt(part, 10);
      if (!isNaN(index) && index >= 0 && index < value.length) value = value[index];
      else return undefined;
    } else return undefined;
  }
  return value;
}

function entries(o: Record<string, unknown>): unknown[][] {
  return Object.keys(o).map((k) => [k, o[k]]);
}

export function tojson(v: unknown): string {
  return toJSON(v, null, false, null, false, 0, true);
}

export function length(v: unknown): unknown {
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  return filterNamed('length', v);
}

export function trim(v: unknown): unknown {
  return typeof v === 'string' ? v.trim() : filterNamed('trim', v);
}

export function filterNamed(name: string, v: unknown): unknown {
  if (name === 'safe') return v;
  if (name === 'tojson') return tojson(v);
  const k = kindOf(v);
  if (k === Kind.Array || k === Kind.Tuple) {
    const a = v as unknown[];
    switch (name) {
      case 'list':
        return a;
      case 'first':
        return a.length > 0 ? a[0] : fallback('first of an empty array');
      case 'last':
        return a.length > 0 ? a[a.length - 1] : fallback('last of an empty array');
      case 'length':
        return a.length;
      case 'reverse':
        return a.slice().reverse();
      case 'sort':
        return a.slice().sort((x, y) => compareValues(x, y, false));
      case 'join':
        return a.map(joinText).join('');
      case 'string':
        return toJSON(a, null, false, null, false, 0, false);
      case 'unique': {
        const seen = new Set<unknown>();
        const out: unknown[] = [];
        for (const item of a) {
          const key = uniqueKey(item);
          if (!seen.has(key)) {
            seen.add(key);
            out.push(item);
          }
        }
        return out;
      }
    }
    throw new Error(`Unknown ArrayValue filter: ${name}`);
  }
  if (k === Kind.String) {
    const s = v as string;
    switch (name) {
      case 'length':
        return s.length;
      case 'upper':
        return s.toUpperCase();
      case 'lower':
        return s.toLowerCase();
      case 'title':
        return titleCase(s);
      case 'capitalize':
        return s.charAt(0).toUpperCase() + s.slice(1);
      case 'trim':
        return s.trim();
      case 'indent':
        return s
          .split('\n')
          .map((x, i) => (i === 0 || x.length === 0 ? x : '    ' + x))
          .join('\n');
      case 'join':
      case 'string':
        return s;
      case 'int': {
        const n = parseInt(s, 10);
        return isNaN(n) ? 0 : n;
      }
      case 'float': {
        const n = parseFloat(s);
        return floatResult(isNaN(n) ? 0 : n);
      }
    }
    throw new Error(`Unknown StringValue filter: ${name}`);
  }
  if (k === Kind.Integer || k === Kind.Float) {
    const n = num(v as number | FloatBox);
    switch (name) {
      case 'abs':
        return k === Kind.Integer ? intResult(Math.abs(n)) : floatResult(Math.abs(n));
      case 'int':
        return intResult(Math.floor(n));
      case 'float':
        return floatResult(n);
      case 'string':
        return k === Kind.Integer ? String(n) : floatText(n);
    }
    throw new Error(`Unknown NumericValue filter: ${name}`);
  }
  if (k === Kind.Object) {
    const o = v as Record<string, unknown>;
    if (name === 'items') return entries(o);
    if (name === 'length') return Object.keys(o).length;
    if (name === 'get') return fallback('get filter without a key');
    if (name === 'keys' || name === 'values' || name === 'dictsort') return objectMethod(o, name, []);
    throw new Error(`Unknown ObjectValue filter: ${name}`);
  }
  if (k === Kind.Boolean) {
    switch (name) {
      case 'bool':
        return v;
      case 'int':
        return v ? 1 : 0;
      case 'float':
        return new FloatBox(v ? 1 : 0);
      case 'string':
        return v ? 'true' : 'false';
    }
    throw new Error(`Unknown BooleanValue filter: ${name}`);
  }
  if (k === Kind.Kwargs) return fallback('filter on keyword arguments');
  throw new Error(`Cannot apply filter "${name}" to type: ${typeName(v)}`);
}

/** `options[key]` when given, `otherwise` when not (a given undefined stays undefined). */
function kw(kwargs: ReadonlyMap<string, unknown>, key: string, otherwise: unknown): unknown {
  return kwargs.has(key) ? kwargs.get(key) : otherwise;
}

function arg(args: readonly unknown[], i: number, kwargs: ReadonlyMap<string, unknown>, key: string, otherwise: unknown): unknown {
  return i < args.length ? args[i] : kw(kwargs, key, otherwise);
}

function tojsonCalled(v: unknown, kwargs: ReadonlyMap<string, unknown>): string {
  const indent = kw(kwargs, 'indent', null);
  if (indent !== null && kindOf(indent) !== Kind.Integer) throw new Error('If set, indent must be a number');
  const ensureAscii = kw(kwargs, 'ensure_ascii', false);
  if (typeof ensureAscii !== 'boolean') throw new Error('If set, ensure_ascii must be a boolean');
  const sortKeys = kw(kwargs, 'sort_keys', false);
  if (typeof sortKeys !== 'boolean') throw new Error('If set, sort_keys must be a boolean');
  const sepArg = kw(kwargs, 'separators', null);
  let separators: [string, string] | null = null;
  if (Array.isArray(sepArg)) {
    if (sepArg.length !== 2) throw new Error('separators must be a tuple of two strings');
    const [itemSep, keySep] = sepArg;
    if (typeof itemSep !== 'string' || typeof keySep !== 'string') throw new Error('separators must be a tuple of two strings');
    separators = [itemSep, keySep];
  } else if (sepArg !== null) throw new Error('If set, separators must be a tuple of two strings');
  return toJSON(v, indent as number | null, ensureAscii, separators, sortKeys, 0, true);
}

function selectAttr(select: boolean, items: unknown[], args: readonly unknown[]): unknown[] {
  const name = select ? 'selectattr' : 'rejectattr';
  if (items.some((item) => !isContainer(item))) throw new Error(`\`${name}\` can only be applied to array of objects`);
  const [attrName, testName, value] = args as [string, string | undefined, unknown];
  let test: TestFunction;
  if (testName !== undefined) {
    const found = TESTS.get(testName);
    if (!found) throw new Error(`Unknown test: ${testName}`);
    test = found;
  } else test = (x) => truthy(x);
  return items.filter((item) => {
    const got = containerGet(item, attrName);
    const result = got.found ? test(got.value, value) : false;
    return select ? result : !result;
  });
}

function mapAttr(items: unknown[], kwargs: ReadonlyMap<string, unknown>): unknown[] {
  if (!kwargs.has('attribute')) throw new Error('`map` expressions without `attribute` set are not currently supported.');
  const attribute = kwargs.get('attribute');
  if (typeof attribute !== 'string') throw new Error('attribute must be a string');
  const otherwise = kwargs.get('default');
  return items.map((item) => {
    if (!isContainer(item)) throw new Error('items in map must be an object');
    const value = attributePath(item, attribute);
    return value === undefined ? otherwise : value;
  });
}

function sortCalled(items: unknown[], args: readonly unknown[], kwargs: ReadonlyMap<string, unknown>): unknown[] {
  const reverse = arg(args, 0, kwargs, 'reverse', false);
  if (typeof reverse !== 'boolean') throw new Error('reverse must be a boolean');
  const caseSensitive = arg(args, 1, kwargs, 'case_sensitive', false);
  if (typeof caseSensitive !== 'boolean') throw new Error('case_sensitive must be a boolean');
  const attribute = arg(args, 2, kwargs, 'attribute', null);
  const ak = kindOf(attribute);
  if (ak !== Kind.String && ak !== Kind.Integer && ak !== Kind.Null) throw new Error('attribute must be a string, integer, or null');
  const key = (item: unknown): unknown => (attribute === null ? item : attributePath(item, String(attribute)));
  return items.slice().sort((a, b) => {
    const result = compareValues(key(a), key(b), caseSensitive);
    return reverse ? -result : result;
  });
}

function indentCalled(s: string, args: readonly unknown[], kwargs: ReadonlyMap<string, unknown>): string {
  const width = arg(args, 0, kwargs, 'width', 4);
  if (kindOf(width) !== Kind.Integer) throw new Error('width must be a number');
  const first = heldTruthy(arg(args, 1, kwargs, 'first', false));
  const blank = heldTruthy(arg(args, 2, kwargs, 'blank', false));
  const pad = ' '.repeat(width as number);
  return s
    .split('\n')
    .map((x, i) => ((!first && i === 0) || (!blank && x.length === 0) ? x : pad + x))
    .join('\n');
}

export function filterCalled(name: string, v: unknown, args: unknown[], kwargs: ReadonlyMap<string, unknown>): unknown {
  if (name === 'tojson') return tojsonCalled(v, kwargs);
  const k = kindOf(v);
  if (name === 'join') {
    let parts: string[];
    if (k === Kind.String) parts = Array.from(v as string);
    else if (k === Kind.Array || k === Kind.Tuple) parts = (v as unknown[]).map(joinText);
    else throw new Error(`Cannot apply filter "${name}" to type: ${typeName(v)}`);
    const separator = arg(args, 0, kwargs, 'separator', '');
    if (typeof separator !== 'string') throw new Error('separator must be a string');
    return parts.join(separator);
  }
  if (name === 'int' || name === 'float') {
    const isInt = name === 'int';
    const otherwise = arg(args, 0, kwargs, 'default', isInt ? 0 : new FloatBox(0));
    if (k === Kind.String) {
      const n = isInt ? parseInt(v as string, 10) : parseFloat(v as string);
      return isNaN(n) ? otherwise : isInt ? n : floatResult(n);
    }
    if (k === Kind.Integer || k === Kind.Float) return v;
    if (k === Kind.Boolean) return isInt ? (v ? 1 : 0) : new FloatBox(v ? 1 : 0);
    throw new Error(`Cannot apply filter "${name}" to type: ${typeName(v)}`);
  }
  if (name === 'default') {
    const otherwise = args.length > 0 ? args[0] : '';
    const flag = arg(args, 1, kwargs, 'boolean', false);
    if (typeof flag !== 'boolean') throw new Error('`default` filter flag must be a boolean');
    return v === undefined || (flag && !truthy(v)) ? otherwise : v;
  }
  if (k === Kind.Array || k === Kind.Tuple) {
    const items = v as unknown[];
    switch (name) {
      case 'sort':
        return sortCalled(items, args, kwargs);
      case 'selectattr':
      case 'rejectattr':
        return selectAttr(name === 'selectattr', items, args);
      case 'map':
        return mapAttr(items, kwargs);
    }
    throw new Error(`Unknown ArrayValue filter: ${name}`);
  }
  if (k === Kind.String) {
    if (name === 'indent') return indentCalled(v as string, args, kwargs);
    if (name === 'replace') return replaceMethod(v as string, [...args, new Kwargs(new Map(kwargs))]);
    throw new Error(`Unknown StringValue filter: ${name}`);
  }
  if (k === Kind.Object) {
    if (name === 'get' || name === 'items' || name === 'keys' || name === 'values' || name === 'dictsort') {
      const withKw = kwargs.size > 0 ? [...args, new Kwargs(new Map(kwargs))] : args;
      return objectMethod(v as Record<string, unknown>, name, withKw);
    }
    throw new Error(`Unknown ObjectValue filter: ${name}`);
  }
  if (k === Kind.Kwargs) return fallback('filter on keyword arguments');
  throw new Error(`Cannot apply filter "${name}" to type: ${typeName(v)}`);
}
