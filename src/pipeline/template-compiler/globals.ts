/**
 * The functions every render starts with (setupGlobals and Environment's `namespace`), taking the
 * interpreter's argument list: positional values, then a Kwargs when keywords were given.
 */
import { jsString } from './text.js';
import { FloatBox, Kind, Kwargs, Namespace, fallback, kindOf, typeName } from './values.js';

/** The name → value pairs the library declares before the context (redeclaring one throws). */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set([
  'namespace',
  'false',
  'true',
  'none',
  'raise_exception',
  'range',
  'strftime_now',
  'True',
  'False',
  'None',
]);

/** raise_exception(message): `new Error(firstArgument.value)`. */
export function raiseException(args: unknown[]): never {
  const first = args[0];
  if (first instanceof Kwargs) throw new Error('[object Map]');
  throw new Error(first === undefined || first === null ? '' : jsString(first));
}

function rangeNumber(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  if (v instanceof FloatBox) return v.v;
  return fallback('range() over a non-number');
}

export function range(args: unknown[]): number[] {
  let start = rangeNumber(args[0]);
  let stop = rangeNumber(args[1]);
  const step = rangeNumber(args[2]) ?? 1;
  if (args.length > 3) return fallback('range() with extra arguments');
  if (stop === undefined) {
    stop = start;
    start = 0;
  }
  if (step === 0) throw new Error('range() step must not be zero');
  const out: number[] = [];
  if (start === undefined || stop === undefined) return out;
  if (step > 0) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  return out;
}

const pad2 = (n: number): string => (n < 10 ? '0' + n : n.toString());
let monthLong: Intl.DateTimeFormat | undefined;
let monthShort: Intl.DateTimeFormat | undefined;

/** The library's strftime: only %Y %m %d %b %B %H %M %% are expanded, in local time. */
export function strftime(date: Date, format: string): string {
  return format.replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case '%Y':
        return date.getFullYear().toString();
      case '%m':
        return pad2(date.getMonth() + 1);
      case '%d':
        return pad2(date.getDate());
      case '%b':
        return (monthShort ??= new Intl.DateTimeFormat(undefined, { month: 'short' })).format(date);
      case '%B':
        return (monthLong ??= new Intl.DateTimeFormat(undefined, { month: 'long' })).format(date);
      case '%H':
        return pad2(date.getHours());
      case '%M':
        return pad2(date.getMinutes());
      default:
        return '%';
    }
  });
}

export function strftimeNow(args: unknown[]): string {
  const format = args[0];
  if (typeof format !== 'string' || args.length > 1) return fallback('strftime_now() without one string');
  return strftime(new Date(), format);
}

function namespaceEntry(pair: unknown): [string, unknown] {
  let values: unknown[] | undefined;
  if (Array.isArray(pair)) values = pair;
  else if (typeof pair === 'string') values = Array.from(pair);
  if (!values || values.length !== 2) throw new Error('namespace expected an object or an iterable of [key, value] pairs');
  const [key, value] = values;
  if (typeof key !== 'string') throw new Error('namespace keys must be strings');
  return [key, value];
}

export function namespace(args: unknown[]): Namespace {
  const positional = args.slice();
  let kwargs: Kwargs | undefined;
  if (positional.at(-1) instanceof Kwargs) kwargs = positional.pop() as Kwargs;
  if (positional.length > 1) throw new Error(`namespace expected at most 1 argument, got ${positional.length}`);
  const entries = new Map<string, unknown>();
  if (positional.length === 1) {
    const source = positional[0];
    const k = kindOf(source);
    if (k === Kind.Object) {
      const o = source as Record<string, unknown>;
      for (const key of Object.keys(o)) entries.set(key, o[key]);
    } else if (k === Kind.Array || k === Kind.Tuple) {
      for (const pair of source as unknown[]) {
        const [key, value] = namespaceEntry(pair);
        entries.set(key, value);
      }
    } else if (k === Kind.Kwargs) {
      return fallback('namespace() of keyword arguments');
    } else {
      throw new Error(`'${typeName(source)}' object is not iterable`);
    }
  }
  if (kwargs) for (const [key, value] of kwargs.m) entries.set(key, value);
  return new Namespace(entries);
}
