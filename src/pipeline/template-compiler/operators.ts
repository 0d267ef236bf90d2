/**
 * Binary and unary operators with the interpreter's exact typing and error texts
 * (Interpreter.evaluateBinaryExpression / evaluateUnaryExpression), plus the fast paths compiled
 * code calls for the common string and number cases. `and`, `or` and `not` are compiled inline.
 */
import { jsString } from './text.js';
import {
  FloatBox,
  Kind,
  fallback,
  floatResult,
  hasOwn,
  intResult,
  kindOf,
  num,
  typeName,
} from './values.js';

const isNumber = (k: Kind): boolean => k === Kind.Integer || k === Kind.Float;
const isNumericLike = (k: Kind): boolean => k === Kind.Integer || k === Kind.Float || k === Kind.Boolean;
const isArrayKind = (k: Kind): boolean => k === Kind.Array || k === Kind.Tuple;
const numericLike = (v: unknown): number => (typeof v === 'boolean' ? Number(v) : num(v as number | FloatBox));

/** What the interpreter compares for `in` on arrays: `element.value === left.value`. */
function identityKey(v: unknown): unknown {
  if (v === null) return undefined; // NullValue holds no JS value
  if (v instanceof FloatBox) return v.v;
  if (typeof v === 'function') return fallback('function compared by identity');
  return v;
}

/** Whether `elements` holds `needle`, by the interpreter's strict comparison of raw values. */
export function arrayIncludes(elements: readonly unknown[], needle: unknown): boolean {
  const key = identityKey(needle);
  for (const e of elements) if (identityKey(e) === key) return true;
  return false;
}

/** `left.value == right.value`: JS loose equality on what the RuntimeValues wrap. */
export function looseEq(a: unknown, b: unknown): boolean {
  const ta = typeof a;
  const tb = typeof b;
  if ((ta !== 'object' || a === null) && (tb !== 'object' || b === null) && ta !== 'function' && tb !== 'function') {
    // eslint-disable-next-line eqeqeq -- the interpreter's own comparison
    return a == b;
  }
  if (a instanceof FloatBox) a = a.v;
  if (b instanceof FloatBox) b = b.v;
  if (typeof a === 'function' || typeof b === 'function') return fallback('function compared with ==');
  const aObj = typeof a === 'object' && a !== null;
  const bObj = typeof b === 'object' && b !== null;
  if (aObj && bObj) return a === b;
  if (!aObj && !bObj) {
    // eslint-disable-next-line eqeqeq
    return a == b;
  }
  const [obj, prim] = aObj ? [a, b] : [b, a];
  if (prim === null || prim === undefined) return false;
  // An object meets a primitive: JS converts the wrapped Array (elements' toString joined) or Map.
  const text = Array.isArray(obj) ? jsString(obj) : '[object Map]';
  // eslint-disable-next-line eqeqeq
  return text == prim;
}

/** `==` against a string literal, the common case. */
export function eqString(a: unknown, s: string): boolean {
  return typeof a === 'string' ? a === s : looseEq(a, s);
}

/** Every operator except and/or/not, exactly as evaluateBinaryExpression orders its checks. */
export function binary(op: string, left: unknown, right: unknown): unknown {
  if (op === '==') return looseEq(left, right);
  if (op === '!=') return !looseEq(left, right);
  const lk = kindOf(left);
  const rk = kindOf(right);
  if (lk === Kind.Undefined || rk === Kind.Undefined) {
    if (rk === Kind.Undefined && (op === 'in' || op === 'not in')) return op === 'not in';
    throw new Error(`Cannot perform operation ${op} on undefined values`);
  }
  if (lk === Kind.Null || rk === Kind.Null) throw new Error('Cannot perform operation on null values');
  if (op === '~') return jsString(left) + jsString(right);
  if (op === '**' && isNumericLike(lk) && isNumericLike(rk)) {
    const a = numericLike(left);
    const b = numericLike(right);
    if (a === 0 && b < 0) throw new Error('0.0 cannot be raised to a negative power');
    const result = a ** b;
    if (!Number.isFinite(result)) throw new Error('Exponentiation result is not a finite real number');
    return lk === Kind.Float || rk === Kind.Float || b < 0 ? floatResult(result) : intResult(result);
  }
  if (isNumber(lk) && isNumber(rk)) {
    const a = num(left as number | FloatBox);
    const b = num(right as number | FloatBox);
    const float = lk === Kind.Float || rk === Kind.Float;
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const res = op === '+' ? a + b : op === '-' ? a - b : a * b;
        return float ? floatResult(res) : intResult(res);
      }
      case '/':
        return floatResult(a / b);
      case '//': {
        const res = Math.floor(a / b);
        return float ? floatResult(res) : intResult(res);
      }
      case '%': {
        const rem = a % b;
        return float ? floatResult(rem) : intResult(rem);
      }
      case '<':
        return a < b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
      case '<=':
        return a <= b;
    }
  } else if (isArrayKind(lk) && isArrayKind(rk)) {
    if (op === '+') return (left as unknown[]).concat(right as unknown[]);
  } else if (isArrayKind(rk)) {
    if (op === 'in') return arrayIncludes(right as unknown[], left);
    if (op === 'not in') return !arrayIncludes(right as unknown[], left);
  }
  if ((lk === Kind.String || rk === Kind.String) && op === '+') return jsString(left) + jsString(right);
  if (lk === Kind.String && rk === Kind.String) {
    if (op === 'in') return (right as string).includes(left as string);
    if (op === 'not in') return !(right as string).includes(left as string);
  }
  if (lk === Kind.String && rk === Kind.Object) {
    if (op === 'in') return hasOwn(right as object, left as string);
    if (op === 'not in') return !hasOwn(right as object, left as string);
  }
  if (lk === Kind.String && rk === Kind.Kwargs) return fallback('`in` on keyword arguments');
  throw new SyntaxError(`Unknown operator "${op}" between ${typeName(left)} and ${typeName(right)}`);
}

/** `a + b` where `a` is known to be a string. */
export function addToString(a: string, b: unknown): unknown {
  return typeof b === 'string' ? a + b : binary('+', a, b);
}

/** `a + b` where `b` is known to be a string. */
export function addString(a: unknown, b: string): unknown {
  return typeof a === 'string' ? a + b : binary('+', a, b);
}

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return binary('+', a, b);
}

export function concat(a: unknown, b: unknown): string {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return binary('~', a, b) as string;
}

/** `in` / `not in`, with the string-in-string case first. */
export function contains(needle: unknown, haystack: unknown): boolean {
  if (typeof needle === 'string' && typeof haystack === 'string') return haystack.includes(needle);
  return binary('in', needle, haystack) as boolean;
}

/** `not in`: its own operator, so errors name it. */
export function excludes(needle: unknown, haystack: unknown): boolean {
  if (typeof needle === 'string' && typeof haystack === 'string') return !haystack.includes(needle);
  return binary('not in', needle, haystack) as boolean;
}

export function unary(op: '-' | '+', v: unknown): unknown {
  const k = kindOf(v);
  if (k === Kind.Integer || k === Kind.Float || k === Kind.Boolean) {
    const sign = op === '-' ? -1 : 1;
    const result = sign * numericLike(v);
    return k === Kind.Float ? floatResult(result) : intResult(result);
  }
  throw new SyntaxError(`Unknown operator "${op}" for ${typeName(v)}`);
}

/** compareRuntimeValues, the order `sort` and `dictsort` use. */
export function compareValues(a: unknown, b: unknown, caseSensitive: boolean): number {
  const ak = kindOf(a);
  const bk = kindOf(b);
  if (ak === Kind.Null && bk === Kind.Null) return 0;
  if (ak === Kind.Null || bk === Kind.Null) throw new Error(`Cannot compare ${typeName(a)} with ${typeName(b)}`);
  if (ak === Kind.Undefined && bk === Kind.Undefined) return 0;
  if (ak === Kind.Undefined || bk === Kind.Undefined) throw new Error(`Cannot compare ${typeName(a)} with ${typeName(b)}`);
  if (isNumericLike(ak) && isNumericLike(bk)) {
    const x = numericLike(a);
    const y = numericLike(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ak !== bk) throw new Error(`Cannot compare different types: ${typeName(a)} and ${typeName(b)}`);
  if (ak === Kind.String) {
    let x = a as string;
    let y = b as string;
    if (!caseSensitive) {
      x = x.toLowerCase();
      y = y.toLowerCase();
    }
    return x < y ? -1 : x > y ? 1 : 0;
  }
  throw new Error(`Cannot compare type: ${typeName(a)}`);
}
