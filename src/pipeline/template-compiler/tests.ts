/**
 * The `is` tests (Environment.TESTS). `equalto`/`eq` are only usable from `selectattr`, where
 * they get a second value; in an `is` expression the library would crash, so the compiler refuses
 * them there.
 */
import { FloatBox, Kind, kindOf, typeName } from './values.js';

/** The raw JS value a RuntimeValue holds, as `a.value === b.value` compares it. */
function held(v: unknown): unknown {
  if (v === null) return undefined;
  return v instanceof FloatBox ? v.v : v;
}

export type TestFunction = (v: unknown, other?: unknown) => boolean;

export const TESTS: ReadonlyMap<string, TestFunction> = new Map<string, TestFunction>([
  ['boolean', (v) => typeof v === 'boolean'],
  ['callable', (v) => typeof v === 'function'],
  [
    'odd',
    (v) => {
      if (kindOf(v) !== Kind.Integer) throw new Error(`cannot odd on ${typeName(v)}`);
      return (v as number) % 2 !== 0;
    },
  ],
  [
    'even',
    (v) => {
      if (kindOf(v) !== Kind.Integer) throw new Error(`cannot even on ${typeName(v)}`);
      return (v as number) % 2 === 0;
    },
  ],
  ['false', (v) => v === false],
  ['true', (v) => v === true],
  ['none', (v) => v === null],
  ['string', (v) => typeof v === 'string'],
  ['number', (v) => kindOf(v) === Kind.Integer || kindOf(v) === Kind.Float],
  ['integer', (v) => kindOf(v) === Kind.Integer],
  ['iterable', (v) => kindOf(v) === Kind.Array || typeof v === 'string'],
  ['mapping', (v) => kindOf(v) === Kind.Object || kindOf(v) === Kind.Kwargs],
  [
    'sequence',
    (v) => {
      const k = kindOf(v);
      return k === Kind.Array || k === Kind.Tuple || k === Kind.Object || k === Kind.Kwargs || k === Kind.String;
    },
  ],
  ['lower', (v) => typeof v === 'string' && v === v.toLowerCase()],
  ['upper', (v) => typeof v === 'string' && v === v.toUpperCase()],
  ['defined', (v) => v !== undefined],
  ['undefined', (v) => v === undefined],
  ['equalto', (a, b) => held(a) === held(b)],
  ['eq', (a, b) => held(a) === held(b)],
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
  ['callable', (x: string) => `typeof ${x} === 'function'`],
]);
