/**
 * Everything generated code calls, as one object it destructures once per template. The method
 * fast paths below handle the receiver type real templates use (a string, a plain object) without
 * building an argument array and hand anything else to the interpreter-shaped `callMethod`.
 */
import { attr, checkUnpack, item, iterable, slice, sliceable } from './access.js';
import { filterCalled, filterNamed, length, tojson, trim } from './filters.js';
import { BUILTIN_NAMES, namespace, raiseException, range, strftimeNow } from './globals.js';
import { callMethod, callValue, titleCase } from './methods.js';
import { fail, pyStrip, pyTypeName } from './py.js';
import { add, addString, addToString, binary, concat, contains, eqString, excludes, looseEq, unary } from './operators.js';
import { printed } from './text.js';
import { TESTS } from './tests.js';
import { Kwargs, LoopContext, Namespace, SEQ, hasOwn, isPlainObject, makeTuple, tagSeq, truthy, typeName } from './values.js';

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
  if (isPlainObject(o)) return tagSeq(Object.keys(o).map((k) => makeTuple([k, o[k]])), { kind: 'dict_items' });
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

/** `set a, b = value`: Python's unpacking of any iterable. */
function unpackSet(value: unknown, count: number): unknown[] {
  return checkUnpack(value, count);
}

/** `set ns.name = value`. */
function setAttr(target: unknown, name: string, value: unknown): void {
  if (!(target instanceof Namespace)) fail('cannot assign attribute on non-namespace object');
  target.m.set(name, value);
}

/** The `loop` object, built only when a body uses it other than as `loop.<field>`. */
function loopObject(i: number, items: readonly unknown[]): LoopContext {
  const n = items.length;
  return new LoopContext(
    new Map<string, unknown>([
      ['index', i + 1],
      ['index0', i],
      ['revindex', n - i],
      ['revindex0', n - i - 1],
      ['first', i === 0],
      ['last', i === n - 1],
      ['length', n],
      ['depth', 1],
      ['depth0', 0],
      ['previtem', i > 0 ? items[i - 1] : undefined],
      ['nextitem', i < n - 1 ? items[i + 1] : undefined],
      ['cycle', (args: unknown[]) => (args.length === 0 ? fail('no items for cycling given') : args[i % args.length])],
    ]),
  );
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

/** A `{% filter %}` block's result, which jinja2 joins into the output only when it is a string. */
function blockText(v: unknown): string {
  return typeof v === 'string' ? v : fail(`sequence item 0: expected str instance, ${pyTypeName(v)} found`);
}

/** Builtins are bound statically; a context key naming one does not replace it (template-differences.md). */
function checkContext(_context: Record<string, unknown>): void {}

export const RUNTIME = {
  UNSET,
  blockText,
  SEQ,
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
