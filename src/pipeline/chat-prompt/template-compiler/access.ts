/**
 * Member access, indexing, slicing and for-loop iteration as jinja2's sandboxed environment does
 * them (SandboxedEnvironment.getattr / getitem). `o.name` looks for a Python attribute first (a
 * dict's `items` is its method, not a key named so), then the item; `o[key]` the other way round;
 * whatever is missing is Undefined, and reading anything of Undefined raises UndefinedError.
 */
import { DICT_METHODS, LIST_METHODS, STRING_METHODS, callMethod } from './methods.js';
import { chars, fail, pyTypeName, strLen, type BoundMethod } from './py.js';
import { Kind, Namespace, dictGet, dictHas, dictKeys, kindOf, makeTuple, seqTag, tagSeq } from './values.js';

/** A builtin method read as a value (`s.upper` without the call): a function bound to `self`. */
function bound(self: unknown, name: string): BoundMethod {
  const fn: BoundMethod = (args) => callMethod(self, name, args);
  fn.methodName = name;
  fn.methodSelf = self;
  return fn;
}

function undefinedRead(key: unknown): never {
  return fail(`UndefinedError: 'jinja2.runtime.Undefined object' has no attribute '${String(key)}'`);
}

/** The Python attribute `name` of `o`, or NOT_FOUND. */
const NOT_FOUND = Symbol('not found');

function pyAttribute(o: unknown, key: string): unknown {
  const k = kindOf(o);
  if (k === Kind.String) return STRING_METHODS.has(key) ? bound(o, key) : NOT_FOUND;
  if (k === Kind.Object) return DICT_METHODS.has(key) ? bound(o, key) : NOT_FOUND;
  if (k === Kind.Array || k === Kind.Tuple) return LIST_METHODS.has(key) ? bound(o, key) : NOT_FOUND;
  if (k === Kind.Namespace) return (o as Namespace).m.has(key) ? (o as Namespace).m.get(key) : NOT_FOUND;
  return NOT_FOUND;
}

/** `obj.name`. */
export function attr(o: unknown, key: string): unknown {
  if (o instanceof Namespace) return o.m.get(key);
  if (typeof o === 'object' && o !== null && Object.getPrototypeOf(o) === Object.prototype) {
    if (DICT_METHODS.has(key)) return bound(o, key);
    return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
  }
  if (o === undefined) return undefinedRead(key);
  const a = pyAttribute(o, key);
  if (a !== NOT_FOUND) return a;
  if (kindOf(o) === Kind.Object) return dictGet(o as object, key);
  return undefined;
}

/** Python's index of a sequence of `n` items, or -1 when out of range. */
function index(i: number, n: number): number {
  const j = i < 0 ? n + i : i;
  return j >= 0 && j < n ? j : -1;
}

/** `obj[key]` for any key value. */
export function item(o: unknown, key: unknown): unknown {
  if (o === undefined) return undefinedRead(key);
  const k = kindOf(o);
  if (k === Kind.Object) {
    if (typeof key === 'string' && dictHas(o as object, key)) return dictGet(o as object, key);
  } else if (k === Kind.Array || k === Kind.Tuple || k === Kind.String) {
    const tag = seqTag(o);
    // Not subscriptable: a TypeError, which jinja2's getitem turns into Undefined.
    if (tag && tag.kind !== 'range') return undefined;
    const kk = kindOf(key);
    if (kk === Kind.Integer || kk === Kind.Boolean) {
      const i = Number(key);
      if (typeof o === 'string') {
        if (i >= 0 && o.length === strLen(o)) return i < o.length ? o[i] : undefined;
        const cs = chars(o);
        const j = index(i, cs.length);
        return j >= 0 ? cs[j] : undefined;
      }
      const items = o as unknown[];
      const j = index(i, items.length);
      return j >= 0 ? items[j] : undefined;
    }
  } else if (k === Kind.Namespace) {
    if (typeof key === 'string' && (o as Namespace).m.has(key)) return (o as Namespace).m.get(key);
  }
  if (typeof key === 'string') {
    const a = pyAttribute(o, key);
    if (a !== NOT_FOUND) return a;
  }
  return undefined;
}

/** The object check of a slice, made before its bounds are evaluated. */
export function sliceable(o: unknown): unknown {
  if (o === undefined) return undefinedRead('__getitem__');
  return o;
}

function bound3(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  const k = kindOf(v);
  if (k !== Kind.Integer && k !== Kind.Boolean) return null;
  return Number(v);
}

/** slice.indices(n): where a slice starts, where it stops, and its step. */
function sliceBounds(n: number, start: number | undefined, stop: number | undefined, step = 1): { from: number; to: number; step: number } {
  if (step === 0) fail('slice step cannot be zero');
  let from: number;
  let to: number;
  if (step > 0) {
    from = start === undefined ? 0 : start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
    to = stop === undefined ? n : stop < 0 ? Math.max(n + stop, 0) : Math.min(stop, n);
  } else {
    from = start === undefined ? n - 1 : start < 0 ? Math.max(n + start, -1) : Math.min(start, n - 1);
    to = stop === undefined ? -1 : stop < 0 ? Math.max(n + stop, -1) : Math.min(stop, n - 1);
  }
  return { from, to, step };
}

/** Python slicing (strings by code point). */
function sliceItems<T>(array: readonly T[], start: number | undefined, stop: number | undefined, step = 1): T[] {
  const { from, to } = sliceBounds(array.length, start, stop, step);
  const direction = Math.sign(step);
  const out: T[] = [];
  for (let i = from; direction * i < direction * to; i += step) out.push(array[i]);
  return out;
}

/** `o[start:stop:step]` after `sliceable(o)`; bounds are undefined when omitted. */
export function slice(o: unknown, start: unknown, stop: unknown, step: unknown, folded = false): unknown {
  const a = bound3(start);
  const b = bound3(stop);
  const c = bound3(step);
  const k = kindOf(o);
  if (folded && ((k !== Kind.String && k !== Kind.Array && k !== Kind.Tuple) || a === null || b === null || c === null)) return undefined;
  // jinja2 compiles a slice to Python's own subscript: no Undefined for what cannot be sliced.
  if (k === Kind.Object) return fail("unhashable type: 'slice'");
  if (k !== Kind.String && k !== Kind.Array && k !== Kind.Tuple) return fail(`'${pyTypeName(o)}' object is not subscriptable`);
  if (a === null || b === null || c === null) return fail('slice indices must be integers or None or have an __index__ method');
  if (typeof o === 'string') return sliceItems(chars(o), a, b, c).join('');
  const tag = seqTag(o);
  if (tag?.kind === 'range') {
    const { from, to, step } = sliceBounds((o as unknown[]).length, a, b, c);
    const items = sliceItems(o as unknown[], a, b, c) as number[];
    return tagSeq(items, { kind: 'range', start: tag.start + from * tag.step, stop: tag.start + to * tag.step, step: tag.step * step });
  }
  if (tag) return fail(`'${tag.kind}' object is not subscriptable`);
  if (k === Kind.Array) return sliceItems(o as unknown[], a, b, c);
  if (k === Kind.Tuple) {
    return makeTuple(sliceItems(o as unknown[], a, b, c));
  }
  return undefined;
}

/** What a for loop walks: a list, a dict's keys, a string's characters; Undefined is empty. */
export function iterable(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) {
    const tag = seqTag(v);
    if (tag?.kind === 'generator' && tag.error) throw tag.error;
    return v;
  }
  if (typeof v === 'string') return chars(v);
  if (v === undefined) return [];
  const k = kindOf(v);
  if (k === Kind.Object) return dictKeys(v as object);
  return fail(`'${pyTypeName(v)}' object is not iterable`);
}

/** The unpacking of `for a, b in ...`, checked for every item before the loop runs. */
export function checkUnpack(current: unknown, count: number): unknown[] {
  let items: readonly unknown[];
  if (Array.isArray(current)) items = iterable(current);
  else if (current === undefined) items = [];
  else if (typeof current === 'string') items = chars(current);
  else if (kindOf(current) === Kind.Object) items = dictKeys(current as object);
  else return fail(`cannot unpack non-iterable ${pyTypeName(current)} object`);
  if (items.length > count) fail(`too many values to unpack (expected ${count})`);
  if (items.length < count) fail(`not enough values to unpack (expected ${count}, got ${items.length})`);
  return items as unknown[];
}
