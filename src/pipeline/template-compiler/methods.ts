/**
 * The builtin methods of strings and objects (StringValue.builtins / ObjectValue.builtins), with
 * the library's argument handling: `args` are the positional arguments followed by a Kwargs when
 * keywords were given. strip/lstrip/rstrip ignore their arguments and trim all whitespace, as the
 * library does.
 */
import { compareValues } from './operators.js';
import { Kind, Kwargs, Namespace, fallback, hasOwn, kindOf, typeName } from './values.js';

export const STRING_METHODS: ReadonlySet<string> = new Set([
  'upper',
  'lower',
  'strip',
  'title',
  'capitalize',
  'rstrip',
  'lstrip',
  'startswith',
  'endswith',
  'split',
  'replace',
]);

export const OBJECT_METHODS: ReadonlySet<string> = new Set(['get', 'items', 'keys', 'values', 'dictsort']);

export function titleCase(s: string): string {
  return s.replace(/\b\w/g, (c) => c.toUpperCase());
}

function affix(self: string, args: unknown[], name: 'startswith' | 'endswith'): boolean {
  if (args.length === 0) throw new Error(`${name}() requires at least one argument`);
  const test = name === 'startswith' ? (p: string) => self.startsWith(p) : (p: string) => self.endsWith(p);
  const pattern = args[0];
  if (typeof pattern === 'string') return test(pattern);
  if (Array.isArray(pattern)) {
    for (const item of pattern) {
      if (typeof item !== 'string') throw new Error(`${name}() tuple elements must be strings`);
      if (test(item)) return true;
    }
    return false;
  }
  throw new Error(`${name}() argument must be a string or tuple of strings`);
}

function split(self: string, args: unknown[]): string[] {
  const sep = args.length > 0 ? args[0] : null;
  if (typeof sep !== 'string' && sep !== null) throw new Error('sep argument must be a string or null');
  const maxsplit = args.length > 1 ? args[1] : -1;
  if (kindOf(maxsplit) !== Kind.Integer) throw new Error('maxsplit argument must be a number');
  const max = maxsplit as number;
  let result: string[] = [];
  if (sep === null) {
    const text = self.trimStart();
    for (const match of text.matchAll(/\S+/g)) {
      if (max !== -1 && result.length >= max) {
        result.push(match[0] + text.slice(match.index + match[0].length));
        break;
      }
      result.push(match[0]);
    }
  } else {
    if (sep === '') throw new Error('empty separator');
    result = self.split(sep);
    if (max !== -1 && result.length > max) result.push(result.splice(max).join(sep));
  }
  return result;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The library's replace(): `count` occurrences (all when null or negative), matched per code point. */
export function replaceText(s: string, old: string, replacement: string, count: number | null): string {
  if (count === 0) return s;
  let remaining = count === null || count < 0 ? Infinity : count;
  const pattern = old.length === 0 ? /(?=)/gu : new RegExp(escapeRegExp(old), 'gu');
  return s.replaceAll(pattern, (match) => {
    if (remaining > 0) {
      --remaining;
      return replacement;
    }
    return match;
  });
}

export function replaceMethod(self: string, args: unknown[]): string {
  if (args.length < 2) throw new Error('replace() requires at least two arguments');
  const [old, replacement] = args;
  if (typeof old !== 'string' || typeof replacement !== 'string') throw new Error('replace() arguments must be strings');
  let count: unknown = null;
  if (args.length > 2) count = args[2] instanceof Kwargs ? (args[2].m.has('count') ? args[2].m.get('count') : null) : args[2];
  // A stored undefined is an UndefinedValue, which the type check below refuses.
  if (count !== null && kindOf(count) !== Kind.Integer) throw new Error('replace() count argument must be a number or null');
  return replaceText(self, old, replacement, count as number | null);
}

function stringMethod(self: string, name: string, args: unknown[]): unknown {
  switch (name) {
    case 'upper':
      return self.toUpperCase();
    case 'lower':
      return self.toLowerCase();
    case 'strip':
      return self.trim();
    case 'title':
      return titleCase(self);
    case 'capitalize':
      return self.charAt(0).toUpperCase() + self.slice(1);
    case 'rstrip':
      return self.trimEnd();
    case 'lstrip':
      return self.trimStart();
    case 'startswith':
    case 'endswith':
      return affix(self, args, name);
    case 'split':
      return split(self, args);
    case 'replace':
      return replaceMethod(self, args);
  }
  throw new Error(`Cannot call something that is not a function: got ${name === 'length' ? 'IntegerValue' : 'UndefinedValue'}`);
}

function entries(o: Record<string, unknown>): unknown[][] {
  return Object.keys(o).map((k) => [k, o[k]]);
}

function dictsort(o: Record<string, unknown>, args: unknown[]): unknown[][] {
  let kwargs = new Map<string, unknown>();
  const positional = args.filter((a) => {
    if (a instanceof Kwargs) {
      kwargs = a.m;
      return false;
    }
    return true;
  });
  const option = (i: number, key: string, otherwise: unknown): unknown =>
    i < positional.length ? positional[i] : kwargs.has(key) ? kwargs.get(key) : otherwise;
  const caseSensitive = option(0, 'case_sensitive', false);
  if (typeof caseSensitive !== 'boolean') throw new Error('case_sensitive must be a boolean');
  const by = option(1, 'by', 'key');
  if (typeof by !== 'string') throw new Error('by must be a string');
  if (by !== 'key' && by !== 'value') throw new Error("by must be either 'key' or 'value'");
  const reverse = option(2, 'reverse', false);
  if (typeof reverse !== 'boolean') throw new Error('reverse must be a boolean');
  const index = by === 'key' ? 0 : 1;
  return entries(o).sort((a, b) => {
    const result = compareValues(a[index], b[index], caseSensitive);
    return reverse ? -result : result;
  });
}

export function objectMethod(o: Record<string, unknown>, name: string, args: unknown[]): unknown {
  switch (name) {
    case 'get': {
      if (args.length === 0) return fallback('get() without a key');
      const key = args[0];
      if (typeof key !== 'string') throw new Error(`Object key must be a string: got ${typeName(key)}`);
      if (hasOwn(o, key)) return o[key];
      if (args.length < 2) return null;
      return args[1] instanceof Kwargs ? fallback('get() default given as keyword') : args[1];
    }
    case 'items':
      return entries(o);
    case 'keys':
      return Object.keys(o);
    case 'values':
      return Object.keys(o).map((k) => o[k]);
    case 'dictsort':
      return dictsort(o, args);
  }
  throw new Error('Cannot call something that is not a function: got UndefinedValue');
}

/** Calls a function value, or throws as the interpreter does for anything else. */
export function callValue(fn: unknown, args: unknown[]): unknown {
  if (typeof fn !== 'function') throw new Error(`Cannot call something that is not a function: got ${typeName(fn)}`);
  return (fn as (args: unknown[]) => unknown)(args);
}

/** `self.name(args)`: the member lookup of evaluateMemberExpression, then the call. */
export function callMethod(self: unknown, name: string, args: unknown[]): unknown {
  if (typeof self === 'string') return stringMethod(self, name, args);
  switch (kindOf(self)) {
    case Kind.Object: {
      const o = self as Record<string, unknown>;
      if (hasOwn(o, name)) return callValue(o[name], args);
      return objectMethod(o, name, args);
    }
    case Kind.Namespace:
      return callValue((self as Namespace).m.get(name), args);
    case Kind.Array:
    case Kind.Tuple:
      return callValue(name === 'length' ? (self as unknown[]).length : undefined, args);
    case Kind.Kwargs:
      return fallback('method of keyword arguments');
    default:
      return callValue(undefined, args);
  }
}
