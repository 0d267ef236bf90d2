/**
 * Member access, indexing, slicing and for-loop iteration (Interpreter.evaluateMemberExpression,
 * evaluateSliceExpression, evaluateFor's iterable check). Reading an attribute never throws:
 * anything missing, or any attribute of none/undefined/numbers, is undefined.
 */
import { OBJECT_METHODS, STRING_METHODS, callMethod } from './methods.js';
import { Kind, Namespace, fallback, hasOwn, isTuple, kindOf, typeName } from './values.js';

/** A builtin method read as a value (`s.upper` without the call): a function bound to `self`. */
function bound(self: unknown, name: string): (args: unknown[]) => unknown {
  return (args) => callMethod(self, name, args);
}

/** `obj.name` / `obj['name']` with a string key. */
export function attr(o: unknown, key: string): unknown {
  if (typeof o === 'object' && o !== null) {
    if (Array.isArray(o)) return key === 'length' ? o.length : undefined;
    if (o instanceof Namespace) return o.m.get(key);
    if (kindOf(o) !== Kind.Object) return kindOf(o) === Kind.Kwargs ? fallback('keyword arguments read') : undefined;
    if (hasOwn(o, key)) return (o as Record<string, unknown>)[key];
    return OBJECT_METHODS.has(key) ? bound(o, key) : undefined;
  }
  if (typeof o === 'string') {
    if (key === 'length') return o.length;
    return STRING_METHODS.has(key) ? bound(o, key) : undefined;
  }
  return undefined;
}

/** `obj[key]` for any key value. */
export function item(o: unknown, key: unknown): unknown {
  if (typeof key === 'string') return attr(o, key);
  const ok = kindOf(o);
  if (ok === Kind.Object || ok === Kind.Namespace || ok === Kind.Kwargs) {
    throw new Error(`Cannot access property with non-string: got ${typeName(key)}`);
  }
  if (ok === Kind.Array || ok === Kind.Tuple || ok === Kind.String) {
    if (kindOf(key) !== Kind.Integer) {
      throw new Error(`Cannot access property with non-string/non-number: got ${typeName(key)}`);
    }
    if (ok === Kind.String) {
      const s = o as string;
      return s.at(key as number);
    }
    return (o as unknown[]).at(key as number);
  }
  throw new Error(`Cannot access property with non-string: got ${typeName(key)}`);
}

/** The object check of a slice, made before its bounds are evaluated. */
export function sliceable(o: unknown): unknown {
  const k = kindOf(o);
  if (k !== Kind.Array && k !== Kind.Tuple && k !== Kind.String) throw new Error('Slice object must be an array or string');
  return o;
}

function bound3(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (kindOf(v) !== Kind.Integer) throw new Error(`Slice ${what} must be numeric or undefined`);
  return v as number;
}

/** Python slicing as the library implements it (strings by code point). */
function sliceItems<T>(array: readonly T[], start: number | undefined, stop: number | undefined, step = 1): T[] {
  const n = array.length;
  const direction = Math.sign(step);
  let from: number;
  let to: number;
  if (direction >= 0) {
    from = start === undefined ? 0 : start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
    to = stop === undefined ? n : stop < 0 ? Math.max(n + stop, 0) : Math.min(stop, n);
  } else {
    from = start === undefined ? n - 1 : start < 0 ? Math.max(n + start, -1) : Math.min(start, n - 1);
    to = stop === undefined ? -1 : stop < -1 ? Math.max(n + stop, -1) : Math.min(stop, n - 1);
  }
  const out: T[] = [];
  for (let i = from; direction * i < direction * to; i += step) out.push(array[i]);
  return out;
}

/** `o[start:stop:step]` after `sliceable(o)`; bounds are undefined when omitted. */
export function slice(o: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  const a = bound3(start, 'start');
  const b = bound3(stop, 'stop');
  const c = bound3(step, 'step');
  if (typeof o === 'string') return sliceItems(Array.from(o), a, b, c).join('');
  return sliceItems(o as unknown[], a, b, c);
}

/** What a for loop walks: an array, or an object's keys. */
export function iterable(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  const k = kindOf(v);
  if (k === Kind.Object) return Object.keys(v as object);
  if (k === Kind.Kwargs) return fallback('loop over keyword arguments');
  throw new Error(`Expected iterable or object type in for loop: got ${typeName(v)}`);
}

/** The unpacking check of `for a, b in ...`, made for every item before the loop runs. */
export function checkUnpack(current: unknown, count: number): unknown[] {
  if (!Array.isArray(current) || isTuple(current)) throw new Error(`Cannot unpack non-iterable type: ${typeName(current)}`);
  if (current.length !== count) throw new Error(`Too ${count > current.length ? 'few' : 'many'} items to unpack`);
  return current;
}
