/**
 * Everything generated code calls, as one object it destructures once per template. The method
 * fast paths below handle the receiver type real templates use (a string, a plain object) without
 * building an argument array and hand anything else to the interpreter-shaped `callMethod`.
 */
import { attr, checkUnpack, item, iterable, slice, sliceable } from './access.js';
import { filterCalled, filterNamed, length, tojson, trim } from './filters.js';
import { BUILTIN_NAMES, namespace, raiseException, range, strftimeNow } from './globals.js';
import { callMethod, callValue, titleCase } from './methods.js';
import { pyStrip } from './py.js';
import { add, addString, addToString, binary, concat, contains, eqString, excludes, looseEq, unary } from './operators.js';
import { printed } from './text.js';
import { TESTS } from './tests.js';
import { Kwargs, Namespace, hasOwn, isPlainObject, makeTuple, truthy, typeName } from './values.js';

/** "Not set in this scope yet": distinct from undefined, which a scope can hold. */
export const UNSET: unique symbol = Symbol('jinja.unset');

const startswith1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && typeof a === 'string' ? o.startsWith(a) : callMethod(o, 'startswith', [a]);
const endswith1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && typeof a === 'string' ? o.endsWith(a) : callMethod(o, 'endswith', [a]);
const split1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && typeof a === 'string' && a !== '' ? o.split(a) : callMethod(o, 'split', [a]);
const strip0 = (o: unknown): unknown => (typeof o === 'string' ? pyStrip(o, null, true, true) : callMethod(o, 'strip', []));
const strip1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && (a === null || typeof a === 'string') ? pyStrip(o, a, true, true) : callMethod(o, 'strip', [a]);
const lstrip0 = (o: unknown): unknown => (typeof o === 'string' ? pyStrip(o, null, true, false) : callMethod(o, 'lstrip', []));
const lstrip1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && (a === null || typeof a === 'string') ? pyStrip(o, a, true, false) : callMethod(o, 'lstrip', [a]);
const rstrip0 = (o: unknown): unknown => (typeof o === 'string' ? pyStrip(o, null, false, true) : callMethod(o, 'rstrip', []));
const rstrip1 = (o: unknown, a: unknown): unknown =>
  typeof o === 'string' && (a === null || typeof a === 'string') ? pyStrip(o, a, false, true) : callMethod(o, 'rstrip', [a]);
const upper0 = (o: unknown): unknown => (typeof o === 'string' ? o.toUpperCase() : callMethod(o, 'upper', []));
const lower0 = (o: unknown): unknown => (typeof o === 'string' ? o.toLowerCase() : callMethod(o, 'lower', []));
const title0 = (o: unknown): unknown => (typeof o === 'string' ? titleCase(o) : callMethod(o, 'title', []));

function get1(o: unknown, key: unknown): unknown {
  if (isPlainObject(o) && typeof key === 'string') return hasOwn(o, key) ? o[key] : null;
  return callMethod(o, 'get', [key]);
}

function items0(o: unknown): unknown {
  if (isPlainObject(o)) return Object.keys(o).map((k) => makeTuple([k, o[k]]));
  return callMethod(o, 'items', []);
}

function kwargs(flat: unknown[]): Kwargs {
  return new Kwargs(kwargMap(flat));
}

function kwargMap(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i < flat.length; i += 2) m.set(flat[i] as string, flat[i + 1]);
  return m;
}

/** `set a, b = value`. */
function unpackSet(value: unknown, count: number): unknown[] {
  if (!Array.isArray(value)) throw new Error(`Cannot unpack non-iterable type in set: ${typeName(value)}`);
  if (value.length !== count) throw new Error(`Too ${count > value.length ? 'few' : 'many'} items to unpack in set`);
  return value;
}

/** `set ns.name = value`. */
function setAttr(target: unknown, name: string, value: unknown): void {
  if (!(target instanceof Namespace)) throw new Error('cannot assign attribute on non-namespace object');
  target.m.set(name, value);
}

/** The `loop` object, built only when a body uses it other than as `loop.<field>`. */
function loopObject(i: number, items: readonly unknown[]): Record<string, unknown> {
  const n = items.length;
  return {
    index: i + 1,
    index0: i,
    revindex: n - i,
    revindex0: n - i - 1,
    first: i === 0,
    last: i === n - 1,
    length: n,
    previtem: i > 0 ? items[i - 1] : undefined,
    nextitem: i < n - 1 ? items[i + 1] : undefined,
  };
}

/**
 * A macro's parameter values from the interpreter's argument list (positional, then a Kwargs):
 * UNSET where neither gave one. Leftover keywords and surplus positional values throw.
 */
function macroArgs(args: unknown[], names: readonly string[], display: string): unknown[] {
  let positional = args;
  let keywords: Map<string, unknown> | null = null;
  const last = args.at(-1);
  if (last instanceof Kwargs) {
    keywords = new Map(last.m);
    positional = args.slice(0, -1);
  }
  const out: unknown[] = [];
  for (let i = 0; i < names.length; i++) {
    if (i < positional.length) out.push(positional[i]);
    else if (keywords?.has(names[i])) {
      out.push(keywords.get(names[i]));
      keywords.delete(names[i]);
    } else out.push(UNSET);
  }
  if (keywords && keywords.size > 0) throw new Error(`macro ${display} takes no keyword argument '${keywords.keys().next().value}'`);
  if (positional.length > names.length) throw new Error(`macro ${display} takes not more than ${names.length} argument(s)`);
  return out;
}

/** Template.render declares the builtins first; a context key naming one throws. */
function checkContext(context: Record<string, unknown>): void {
  for (const key of Object.keys(context)) {
    if (BUILTIN_NAMES.has(key)) throw new SyntaxError(`Variable already declared: ${key}`);
  }
}

export const RUNTIME = {
  UNSET,
  hasOwn,
  checkContext,
  truthy,
  printed,
  attr,
  item,
  slice,
  sliceable,
  iterable,
  checkUnpack,
  unpackSet,
  setAttr,
  loopObject,
  macroArgs,
  makeTuple,
  kwargs,
  kwargMap,
  looseEq,
  eqString,
  binary,
  unary,
  add,
  addString,
  addToString,
  concat,
  contains,
  excludes,
  callMethod,
  callValue,
  startswith1,
  endswith1,
  split1,
  strip0,
  strip1,
  lstrip0,
  lstrip1,
  rstrip0,
  rstrip1,
  upper0,
  lower0,
  title0,
  get1,
  items0,
  filterNamed,
  filterCalled,
  tojson,
  length,
  trim,
  TESTS,
  raiseException,
  range,
  strftimeNow,
  namespace,
};

export type Runtime = typeof RUNTIME;
