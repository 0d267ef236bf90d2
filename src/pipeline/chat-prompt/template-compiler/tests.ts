/**
 * jinja2's `is` tests (jinja2/tests.py) on Python values: `number` is true for a bool, `iterable`
 * for a dict and for Undefined, `sequence` for a dict and a string, `mapping` only for a dict.
 * Tests taking an argument get it as their second parameter.
 */
import { fail, numeric, pyCompare, pyEquals, pyStr, pyTypeName } from './py.js';
import { pyContains } from './operators.js';
import { FloatBox, Kind, kindOf, seqTag } from './values.js';

export type TestFunction = (v: unknown, other?: unknown) => boolean;

const integral = (v: unknown): boolean => kindOf(v) === Kind.Integer;

/** `value % 2` as jinja2's odd/even compute it (a bool is an int; anything else raises). */
function modulo2(v: unknown): number {
  if (v === undefined) fail('UndefinedError: the value is undefined');
  const n = numeric(v);
  if (n === null) return fail(`unsupported operand type(s) for %: '${pyTypeName(v)}' and 'int'`);
  if (typeof n === 'bigint') return Number(((n % 2n) + 2n) % 2n);
  return ((n % 2) + 2) % 2;
}

/** str.islower / isupper: at least one cased character, and no cased one of the other case. */
function isLower(s: string): boolean {
  return /\p{Cased}/u.test(s) && s === s.toLowerCase() && !/\p{Lu}|\p{Lt}/u.test(s);
}

function isUpper(s: string): boolean {
  return /\p{Cased}/u.test(s) && s === s.toUpperCase() && !/\p{Ll}|\p{Lt}/u.test(s);
}

export const TESTS: ReadonlyMap<string, TestFunction> = new Map<string, TestFunction>([
  ['boolean', (v) => typeof v === 'boolean'],
  ['callable', (v) => typeof v === 'function' || v === undefined],
  ['odd', (v) => modulo2(v) === 1],
  ['even', (v) => modulo2(v) === 0],
  ['divisibleby', (v, n) => BigInt(Math.trunc(Number(v))) % BigInt(Math.trunc(Number(n))) === 0n],
  ['false', (v) => v === false],
  ['true', (v) => v === true],
  ['none', (v) => v === null],
  ['string', (v) => typeof v === 'string'],
  ['number', (v) => {
    const k = kindOf(v);
    return k === Kind.Integer || k === Kind.Float || k === Kind.Boolean;
  }],
  ['integer', (v) => integral(v)],
  ['float', (v) => v instanceof FloatBox || (typeof v === 'number' && !Number.isInteger(v))],
  ['iterable', (v) => {
    const k = kindOf(v);
    return k === Kind.Array || k === Kind.Tuple || k === Kind.String || k === Kind.Object || k === Kind.Undefined;
  }],
  ['mapping', (v) => kindOf(v) === Kind.Object],
  ['sequence', (v) => {
    const tag = seqTag(v);
    if (tag) return tag.kind === 'range';
    const k = kindOf(v);
    return k === Kind.Array || k === Kind.Tuple || k === Kind.Object || k === Kind.String || k === Kind.Undefined;
  }],
  ['lower', (v) => isLower(pyStr(v))],
  ['upper', (v) => isUpper(pyStr(v))],
  ['defined', (v) => v !== undefined],
  ['undefined', (v) => v === undefined],
  ['equalto', (a, b) => pyEquals(a, b)],
  ['eq', (a, b) => pyEquals(a, b)],
  ['==', (a, b) => pyEquals(a, b)],
  ['ne', (a, b) => !pyEquals(a, b)],
  ['!=', (a, b) => !pyEquals(a, b)],
  ['lt', (a, b) => pyCompare(a, b, '<') < 0],
  ['<', (a, b) => pyCompare(a, b, '<') < 0],
  ['lessthan', (a, b) => pyCompare(a, b, '<') < 0],
  ['le', (a, b) => pyCompare(a, b, '<=') <= 0],
  ['<=', (a, b) => pyCompare(a, b, '<=') <= 0],
  ['gt', (a, b) => pyCompare(a, b, '>') > 0],
  ['>', (a, b) => pyCompare(a, b, '>') > 0],
  ['greaterthan', (a, b) => pyCompare(a, b, '>') > 0],
  ['ge', (a, b) => pyCompare(a, b, '>=') >= 0],
  ['>=', (a, b) => pyCompare(a, b, '>=') >= 0],
  ['in', (a, b) => pyContains(a, b)],
  ['sameas', (a, b) => a === b],
  ['escaped', () => false],
]);

/** Tests the compiler inlines as a plain JS expression over `x`. */
export const INLINE_TESTS: ReadonlyMap<string, (x: string) => string> = new Map([
  ['defined', (x: string) => `${x} !== undefined`],
  ['undefined', (x: string) => `${x} === undefined`],
  ['none', (x: string) => `${x} === null`],
  ['string', (x: string) => `typeof ${x} === 'string'`],
  ['boolean', (x: string) => `typeof ${x} === 'boolean'`],
  ['true', (x: string) => `${x} === true`],
  ['false', (x: string) => `${x} === false`],
]);
