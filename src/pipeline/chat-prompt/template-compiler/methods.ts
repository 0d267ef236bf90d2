/**
 * Python's methods of str, dict and list that templates call (`content.strip('\n')`,
 * `text.split('</think>')`, `d.get(k, default)`, `d.items()`), with Python's argument handling:
 * `args` are the positional arguments followed by a Kwargs when keywords were given. The immutable
 * sandbox leaves out the methods that modify a list or dict (they read as Undefined there).
 */
import { percentFormat } from './percent-format.js';
import { chars, fail, isSpace, pyCapitalize, pyEquals, pyStr, pyStrip, pyTitle, pyTypeName, strLen } from './py.js';
import { Kind, Kwargs, Namespace, dictGet, dictHas, dictKeys, isTuple, kindOf, makeTuple, tagSeq } from './values.js';
import type { BoundMethod } from './py.js';

export const STRING_METHODS: ReadonlySet<string> = new Set([
  'upper',
  'lower',
  'strip',
  'lstrip',
  'rstrip',
  'title',
  'capitalize',
  'swapcase',
  'casefold',
  'startswith',
  'endswith',
  'split',
  'rsplit',
  'splitlines',
  'replace',
  'join',
  'find',
  'rfind',
  'index',
  'rindex',
  'count',
  'isdigit',
  'isnumeric',
  'isdecimal',
  'isalpha',
  'isalnum',
  'isspace',
  'islower',
  'isupper',
  'istitle',
  'zfill',
  'ljust',
  'rjust',
  'center',
  'partition',
  'rpartition',
  'removeprefix',
  'removesuffix',
  'format',
  'encode',
]);

/** dict attributes that shadow keys of the same name (`d.items` is the method). */
export const DICT_METHODS: ReadonlySet<string> = new Set([
  'get',
  'items',
  'keys',
  'values',
  'copy',
  'update',
  'pop',
  'popitem',
  'setdefault',
  'clear',
  'fromkeys',
]);

export const LIST_METHODS: ReadonlySet<string> = new Set(['index', 'count', 'append', 'extend', 'insert', 'pop', 'remove', 'reverse', 'sort', 'clear', 'copy']);

/** Methods the immutable sandbox refuses to call (SecurityError). */
const MUTATING = new Set(['update', 'pop', 'popitem', 'setdefault', 'clear', 'append', 'extend', 'insert', 'remove', 'reverse', 'sort']);

export function splitArgs(args: readonly unknown[]): { positional: unknown[]; keywords: Map<string, unknown> } {
  const last = args.at(-1);
  if (last instanceof Kwargs) return { positional: args.slice(0, -1), keywords: last.m };
  return { positional: args.slice(), keywords: new Map() };
}

function argOf(a: { positional: unknown[]; keywords: Map<string, unknown> }, i: number, name: string, otherwise: unknown): unknown {
  if (i < a.positional.length) return a.positional[i];
  return a.keywords.has(name) ? a.keywords.get(name) : otherwise;
}

function strArg(v: unknown, what: string): string {
  if (typeof v !== 'string') fail(`${what} must be str, not ${pyTypeName(v)}`);
  return v;
}

function optChars(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return strArg(v, 'strip arg');
}

function affix(self: string, a: ReturnType<typeof splitArgs>, name: 'startswith' | 'endswith'): boolean {
  const pattern = argOf(a, 0, 'prefix', undefined);
  const start = argOf(a, 1, 'start', null);
  const end = argOf(a, 2, 'end', null);
  let s = self;
  if (start !== null || end !== null) {
    const cs = chars(self);
    s = cs.slice(start === null ? 0 : Number(start), end === null ? cs.length : Number(end)).join('');
  }
  const test = name === 'startswith' ? (p: string) => s.startsWith(p) : (p: string) => s.endsWith(p);
  if (typeof pattern === 'string') return test(pattern);
  if (Array.isArray(pattern) && isTuple(pattern)) {
    return pattern.some((p) => test(strArg(p, `${name} first arg`)));
  }
  return fail(`${name} first arg must be str or a tuple of str, not ${pyTypeName(pattern)}`);
}

/** str.split / rsplit. */
export function pySplit(self: string, sep: unknown, maxsplit: unknown, fromRight = false): string[] {
  const max = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (sep === null || sep === undefined) {
    const words: string[] = [];
    let i = 0;
    const cs = chars(self);
    if (fromRight) cs.reverse();
    while (i < cs.length) {
      while (i < cs.length && isSpace(cs[i])) i++;
      if (i >= cs.length) break;
      if (max >= 0 && words.length >= max) {
        let rest = cs.slice(i);
        // Trailing whitespace of the remainder is kept except at the string's end.
        let end = rest.length;
        while (end > 0 && isSpace(rest[end - 1])) end--;
        rest = rest.slice(0, end);
        words.push((fromRight ? rest.reverse() : rest).join(''));
        break;
      }
      let j = i;
      while (j < cs.length && !isSpace(cs[j])) j++;
      const word = cs.slice(i, j);
      words.push((fromRight ? word.reverse() : word).join(''));
      i = j;
    }
    return fromRight ? words.reverse() : words;
  }
  const s = strArg(sep, 'sep');
  if (s === '') fail('empty separator');
  const parts = self.split(s);
  if (max < 0 || parts.length <= max + 1) return parts;
  if (fromRight) return [parts.slice(0, parts.length - max).join(s), ...parts.slice(parts.length - max)];
  return [...parts.slice(0, max), parts.slice(max).join(s)];
}

export function pySplitlines(self: string, keepends = false): string[] {
  const out: string[] = [];
  const re = /\r\n|[\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029]/g;
  let last = 0;
  for (const m of self.matchAll(re)) {
    const end = (m.index as number) + m[0].length;
    out.push(self.slice(last, keepends ? end : m.index));
    last = end;
  }
  if (last < self.length) out.push(self.slice(last));
  return out;
}

/** str.replace(old, new, count=-1), by code point for an empty `old`. */
export function pyReplace(s: string, old: string, replacement: string, count: number): string {
  if (count === 0) return s;
  if (old === '') {
    const cs = chars(s);
    let out = '';
    let n = 0;
    for (let i = 0; i <= cs.length; i++) {
      if (count < 0 || n < count) {
        out += replacement;
        n++;
      }
      if (i < cs.length) out += cs[i];
    }
    return out;
  }
  if (count < 0) return s.split(old).join(replacement);
  let out = '';
  let from = 0;
  for (let n = 0; n < count; n++) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
  }
  return out + s.slice(from);
}

function find(self: string, sub: string, fromRight: boolean): number {
  const at = fromRight ? self.lastIndexOf(sub) : self.indexOf(sub);
  return at < 0 ? -1 : strLen(self.slice(0, at));
}

function countOf(self: string, sub: string): number {
  if (sub === '') return strLen(self) + 1;
  return self.split(sub).length - 1;
}

function justify(self: string, a: ReturnType<typeof splitArgs>, how: 'l' | 'r' | 'c'): string {
  const width = Number(argOf(a, 0, 'width', 0));
  const fill = strArg(argOf(a, 1, 'fillchar', ' '), 'fillchar');
  const n = strLen(self);
  if (width <= n) return self;
  const total = width - n;
  if (how === 'l') return self + fill.repeat(total);
  if (how === 'r') return fill.repeat(total) + self;
  // Python centres with the extra fill on the right when the string's length is even... on the left when odd.
  const left = Math.floor(total / 2) + (total & width & 1);
  return fill.repeat(left) + self + fill.repeat(total - left);
}

/** str.format with positional `{}` / `{0}` and keyword `{name}` fields (no format specs beyond str()). */
function strFormat(self: string, a: ReturnType<typeof splitArgs>): string {
  let auto = 0;
  return self.replace(/\{\{|\}\}|\{([^{}:!]*)(?:![rsa])?(?::([^{}]*))?\}/g, (m, field: string | undefined, spec: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    let value: unknown;
    if (field === undefined || field === '') value = a.positional[auto++];
    else if (/^\d+$/.test(field)) value = a.positional[Number(field)];
    else value = a.keywords.get(field);
    if (spec) return percentFormat(`%${spec.replace(/^([<>^])/, '')}${/[a-z%]$/i.test(spec) ? '' : 's'}`, value);
    return pyStr(value);
  });
}

function stringMethod(self: string, name: string, args: readonly unknown[]): unknown {
  const a = splitArgs(args);
  switch (name) {
    case 'upper':
      return self.toUpperCase();
    case 'lower':
      return self.toLowerCase();
    case 'casefold':
      return self.toLowerCase();
    case 'swapcase':
      return chars(self)
        .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
        .join('');
    case 'strip':
      return pyStrip(self, optChars(argOf(a, 0, 'chars', null)), true, true);
    case 'lstrip':
      return pyStrip(self, optChars(argOf(a, 0, 'chars', null)), true, false);
    case 'rstrip':
      return pyStrip(self, optChars(argOf(a, 0, 'chars', null)), false, true);
    case 'title':
      return pyTitle(self);
    case 'capitalize':
      return pyCapitalize(self);
    case 'startswith':
    case 'endswith':
      return affix(self, a, name);
    case 'split':
    case 'rsplit':
      return pySplit(self, argOf(a, 0, 'sep', null), argOf(a, 1, 'maxsplit', -1), name === 'rsplit');
    case 'splitlines':
      return pySplitlines(self, !!argOf(a, 0, 'keepends', false));
    case 'replace': {
      if (a.keywords.size > 0) fail('str.replace() takes no keyword arguments');
      if (a.positional.length < 2) fail(`replace expected at least 2 arguments, got ${a.positional.length}`);
      const count = argOf(a, 2, 'count', -1);
      return pyReplace(self, strArg(argOf(a, 0, 'old', undefined), 'replace() argument 1'), strArg(argOf(a, 1, 'new', undefined), 'replace() argument 2'), Number(count));
    }
    case 'join': {
      const items = argOf(a, 0, 'iterable', undefined);
      const list = typeof items === 'string' ? chars(items) : Array.isArray(items) ? items : kindOf(items) === Kind.Object ? dictKeys(items as object) : fail(`can only join an iterable`);
      return list.map((x, i) => (typeof x === 'string' ? x : fail(`sequence item ${i}: expected str instance, ${pyTypeName(x)} found`))).join(self);
    }
    case 'find':
    case 'rfind':
    case 'index':
    case 'rindex': {
      const at = find(self, strArg(argOf(a, 0, 'sub', undefined), 'sub'), name.startsWith('r'));
      if (at < 0 && name.endsWith('index')) fail('substring not found');
      return at;
    }
    case 'count':
      return countOf(self, strArg(argOf(a, 0, 'sub', undefined), 'sub'));
    case 'isdigit':
    case 'isnumeric':
    case 'isdecimal':
      return self !== '' && /^\p{Nd}+$/u.test(self);
    case 'isalpha':
      return self !== '' && /^\p{L}+$/u.test(self);
    case 'isalnum':
      return self !== '' && /^[\p{L}\p{N}]+$/u.test(self);
    case 'isspace':
      return self !== '' && chars(self).every(isSpace);
    case 'islower':
      return /\p{Ll}/u.test(self) && self === self.toLowerCase();
    case 'isupper':
      return /\p{Lu}/u.test(self) && self === self.toUpperCase();
    case 'istitle':
      return self !== '' && pyTitle(self) === self && /\p{L}/u.test(self);
    case 'zfill': {
      const width = Number(argOf(a, 0, 'width', 0));
      const sign = /^[+-]/.test(self) ? self[0] : '';
      const rest = sign ? self.slice(1) : self;
      return sign + rest.padStart(Math.max(width - sign.length, 0) + rest.length - strLen(rest), '0');
    }
    case 'ljust':
      return justify(self, a, 'l');
    case 'rjust':
      return justify(self, a, 'r');
    case 'center':
      return justify(self, a, 'c');
    case 'partition':
    case 'rpartition': {
      const sep = strArg(argOf(a, 0, 'sep', undefined), 'sep');
      const at = name === 'partition' ? self.indexOf(sep) : self.lastIndexOf(sep);
      if (at < 0) return makeTuple(name === 'partition' ? [self, '', ''] : ['', '', self]);
      return makeTuple([self.slice(0, at), sep, self.slice(at + sep.length)]);
    }
    case 'removeprefix': {
      const p = strArg(argOf(a, 0, 'prefix', undefined), 'prefix');
      return p !== '' && self.startsWith(p) ? self.slice(p.length) : self;
    }
    case 'removesuffix': {
      const p = strArg(argOf(a, 0, 'suffix', undefined), 'suffix');
      return p !== '' && self.endsWith(p) ? self.slice(0, -p.length) : self;
    }
    case 'format':
      return strFormat(self, a);
  }
  return fail(`'str' object has no attribute '${name}'`);
}

function dictMethod(o: object, name: string, args: readonly unknown[]): unknown {
  const a = splitArgs(args);
  switch (name) {
    case 'get': {
      if (a.positional.length === 0) fail('get expected at least 1 argument, got 0');
      const key = a.positional[0];
      const otherwise = a.positional.length > 1 ? a.positional[1] : null;
      return typeof key === 'string' && dictHas(o, key) ? dictGet(o, key) : otherwise;
    }
    case 'items':
      return tagSeq(dictKeys(o).map((k) => makeTuple([k, dictGet(o, k)])), { kind: 'dict_items' });
    case 'keys':
      return tagSeq(dictKeys(o), { kind: 'dict_keys' });
    case 'values':
      return tagSeq(dictKeys(o).map((k) => dictGet(o, k)), { kind: 'dict_values' });
    case 'copy':
      return Object.fromEntries(dictKeys(o).map((k) => [k, dictGet(o, k)]));
  }
  return fail(`SecurityError: access to attribute '${name}' of 'dict' object is unsafe.`);
}

function listMethod(items: readonly unknown[], name: string, args: readonly unknown[]): unknown {
  const a = splitArgs(args);
  switch (name) {
    case 'index': {
      const at = items.findIndex((x) => pyEquals(x, a.positional[0]));
      if (at < 0) fail(`${pyStr(a.positional[0])} is not in list`);
      return at;
    }
    case 'count':
      return items.filter((x) => pyEquals(x, a.positional[0])).length;
    case 'copy':
      return items.slice();
  }
  return fail(`SecurityError: access to attribute '${name}' of 'list' object is unsafe.`);
}

/** Calls a function value, or raises as Python does for anything else. */
export function callValue(fn: unknown, args: unknown[]): unknown {
  if (fn === undefined) return fail("UndefinedError: 'jinja2.runtime.Undefined object' is not callable");
  if (typeof fn !== 'function') return fail(`'${pyTypeName(fn)}' object is not callable`);
  return (fn as (args: unknown[]) => unknown)(args);
}

/** `self.name(args)`: jinja2's attribute lookup, then the call. */
export function callMethod(self: unknown, name: string, args: unknown[]): unknown {
  if (typeof self === 'string') {
    if (STRING_METHODS.has(name)) return stringMethod(self, name, args);
    return callValue(undefined, args);
  }
  switch (kindOf(self)) {
    case Kind.Undefined:
      return fail(`UndefinedError: 'jinja2.runtime.Undefined object' has no attribute '${name}'`);
    case Kind.Object: {
      const o = self as object;
      if (DICT_METHODS.has(name)) {
        if (MUTATING.has(name)) return fail(`SecurityError: access to attribute '${name}' of 'dict' object is unsafe.`);
        return dictMethod(o, name, args);
      }
      return callValue(dictGet(o, name), args);
    }
    case Kind.Namespace:
      return callValue((self as Namespace).m.get(name), args);
    case Kind.Array:
    case Kind.Tuple:
      if (LIST_METHODS.has(name)) {
        if (MUTATING.has(name)) return fail(`SecurityError: access to attribute '${name}' of 'list' object is unsafe.`);
        return listMethod(self as unknown[], name, args);
      }
      return callValue(undefined, args);
    default:
      return callValue(undefined, args);
  }
}

/** A string's own title-casing, for the `title` filter. */
export const titleCase = pyTitle;
export { strLen };
