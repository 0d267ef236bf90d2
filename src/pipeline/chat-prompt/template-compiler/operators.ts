/**
 * Binary and unary operators as jinja2 evaluates them: Python's operators on Python values, and
 * jinja2's Undefined, which turns into '' under `~`, equals only another Undefined, holds nothing
 * for `in`, and raises UndefinedError under arithmetic and ordering. `and`, `or` and `not` are
 * compiled inline.
 */
import { iterable } from './access.js';
import { percentFormat } from './percent-format.js';
import { fail, floatOf, intOf, numeric, pyCompare, pyEquals, pyStr, pyTypeName } from './py.js';
import { FloatBox, Kind, dictHas, kindOf, makeTuple as tupleOf, seqTag } from './values.js';

function undefinedError(): never {
  return fail('UndefinedError: a variable used in an operation is undefined');
}

function isFloat(v: unknown): boolean {
  return v instanceof FloatBox || (typeof v === 'number' && !Number.isInteger(v));
}

function unsupported(op: string, a: unknown, b: unknown): never {
  return fail(`unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** Arithmetic on two numbers (bools count as ints), Python's int/float typing kept. */
function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b) && (op === '+' || op === '-' || op === '*')) {
    const r = op === '+' ? a + b : op === '-' ? a - b : a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  const x = numeric(a);
  const y = numeric(b);
  if (x === null || y === null) return unsupported(op, a, b);
  const float = isFloat(a) || isFloat(b);
  if (!float && (typeof x === 'bigint' || typeof y === 'bigint' || (op !== '/' && op !== '**'))) {
    const big = typeof x === 'bigint' || typeof y === 'bigint';
    if (big || op === '*' || op === '+' || op === '-') {
      const X = BigInt(x);
      const Y = BigInt(y);
      switch (op) {
        case '+':
          return intOf(X + Y);
        case '-':
          return intOf(X - Y);
        case '*':
          return intOf(X * Y);
        case '//':
          if (Y === 0n) fail('integer division or modulo by zero');
          return intOf(X / Y - ((X % Y !== 0n && X < 0n !== Y < 0n) ? 1n : 0n));
        case '%': {
          if (Y === 0n) fail('integer division or modulo by zero');
          const r = X % Y;
          return intOf(r !== 0n && r < 0n !== Y < 0n ? r + Y : r);
        }
      }
    }
  }
  const X = Number(x);
  const Y = Number(y);
  switch (op) {
    case '+':
      return floatOf(X + Y);
    case '-':
      return floatOf(X - Y);
    case '*':
      return floatOf(X * Y);
    case '/':
      if (Y === 0) fail('division by zero');
      return floatOf(X / Y);
    case '//': {
      if (Y === 0) fail('float floor division by zero');
      const q = Math.floor(X / Y);
      return float ? floatOf(q) : q;
    }
    case '%': {
      if (Y === 0) fail(float ? 'float modulo' : 'integer division or modulo by zero');
      const r = X % Y;
      const m = r !== 0 && r < 0 !== Y < 0 ? r + Y : r;
      return float ? floatOf(m) : m;
    }
    case '**': {
      if (!float && Y >= 0) {
        const r = BigInt(x) ** BigInt(y);
        return intOf(r);
      }
      if (X === 0 && Y < 0) fail('0.0 cannot be raised to a negative power');
      return floatOf(X ** Y);
    }
  }
  return unsupported(op, a, b);
}

function repeat(seq: unknown, times: unknown): unknown {
  const n = Number(numeric(times));
  if (typeof seq === 'string') return n > 0 ? seq.repeat(n) : '';
  const items = seq as unknown[];
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(...items);
  return kindOf(seq) === Kind.Tuple ? tupleOf(out) : out;
}


const isSeq = (k: Kind): boolean => k === Kind.String || k === Kind.Array || k === Kind.Tuple;
const isIntLike = (v: unknown): boolean => kindOf(v) === Kind.Integer || typeof v === 'boolean';

/** Python's `in`. */
export function pyContains(needle: unknown, haystack: unknown): boolean {
  if (typeof haystack === 'string') {
    if (typeof needle !== 'string') fail(`'in <string>' requires string as left operand, not ${pyTypeName(needle)}`);
    return haystack.includes(needle);
  }
  if (haystack === undefined) return false;
  const k = kindOf(haystack);
  if (k === Kind.Array || k === Kind.Tuple) return iterable(haystack).some((x) => pyEquals(x, needle));
  if (k === Kind.Object || k === Kind.Namespace) return typeof needle === 'string' && dictHas(haystack as object, needle);
  return fail(`argument of type '${pyTypeName(haystack)}' is not iterable`);
}

/** Every operator except and/or/not. */
export function binary(op: string, left: unknown, right: unknown): unknown {
  switch (op) {
    case '==':
      return pyEquals(left, right);
    case '!=':
      return !pyEquals(left, right);
    case '~':
      return pyStr(left) + pyStr(right);
    case 'in':
      return pyContains(left, right);
    case 'not in':
      return !pyContains(left, right);
    case '<':
      return pyCompare(left, right, op) < 0;
    case '>':
      return pyCompare(left, right, op) > 0;
    case '<=':
      return pyCompare(left, right, op) <= 0;
    case '>=':
      return pyCompare(left, right, op) >= 0;
  }
  if (left === undefined || right === undefined) return undefinedError();
  const lk = kindOf(left);
  const rk = kindOf(right);
  if (op === '+') {
    if (lk === Kind.String && rk === Kind.String) return (left as string) + (right as string);
    if (lk === Kind.Array && rk === Kind.Array && !seqTag(left) && !seqTag(right)) return (left as unknown[]).concat(right as unknown[]);
    if (lk === Kind.Tuple && rk === Kind.Tuple) return tupleOf((left as unknown[]).concat(right as unknown[]));
    if (lk === Kind.String || rk === Kind.String) {
      return fail(lk === Kind.String ? `can only concatenate str (not "${pyTypeName(right)}") to str` : unsupported('+', left, right));
    }
  }
  if (op === '*') {
    if (isSeq(lk) && isIntLike(right)) return repeat(left, right);
    if (isSeq(rk) && isIntLike(left)) return repeat(right, left);
  }
  if (op === '%' && lk === Kind.String) return percentFormat(left as string, right);
  return arithmetic(op, left, right);
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
  return pyStr(a) + pyStr(b);
}

export function contains(needle: unknown, haystack: unknown): boolean {
  if (typeof needle === 'string' && typeof haystack === 'string') return haystack.includes(needle);
  return pyContains(needle, haystack);
}

export function excludes(needle: unknown, haystack: unknown): boolean {
  return !contains(needle, haystack);
}

/** `==` as Python has it. */
export function looseEq(a: unknown, b: unknown): boolean {
  return pyEquals(a, b);
}

/** `==` against a string literal, the common case. */
export function eqString(a: unknown, s: string): boolean {
  return a === s;
}

export function unary(op: '-' | '+', v: unknown): unknown {
  if (v === undefined) return undefinedError();
  const n = numeric(v);
  if (n === null) return fail(`bad operand type for unary ${op}: '${pyTypeName(v)}'`);
  if (op === '+') return typeof v === 'boolean' ? n : v;
  if (typeof n === 'bigint') return intOf(-n);
  return isFloat(v) ? floatOf(-n) : -n === 0 ? 0 : -n;
}

/** The order `sort`, `dictsort`, `min`/`max` use; strings case-folded unless caseSensitive. */
export function compareValues(a: unknown, b: unknown, caseSensitive: boolean): number {
  if (!caseSensitive) {
    if (typeof a === 'string') a = a.toLowerCase();
    if (typeof b === 'string') b = b.toLowerCase();
  }
  return pyCompare(a, b);
}
