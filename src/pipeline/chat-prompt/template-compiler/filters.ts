/**
 * jinja2's builtin filters (jinja2/filters.py) on Python values, plus transformers' `tojson`
 * (json.dumps, ensure_ascii=False). `filterNamed` is `x | name`, `filterCalled` is
 * `x | name(args)` (positional arguments, then the keyword ones in a Map). Filters that take a
 * string work on str(value) as jinja2's soft_str does: `none | trim` is 'None', Undefined is ''.
 */
import { attr as readAttr, item as readItem, iterable } from './access.js';
import { toJSON } from './json.js';
import { pyReplace, pySplitlines } from './methods.js';
import { compareValues } from './operators.js';
import { percentFormat } from './percent-format.js';
import { chars, fail, floatOf, isSpace, numeric, pyCapitalize, pyEquals, pyStr, pyStrip, pyTypeName, strLen } from './py.js';
import { TESTS } from './tests.js';
import { FloatBox, Kind, Kwargs, dictGet, dictKeys, generator, kindOf, lazy, makeTuple, seqTag, truthy } from './values.js';

/** Escapes HTML as markupsafe.escape does (the `escape` / `e` filter). */
function escapeHtml(s: string): string {
  return s.replace(/[&<>'"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&#34;' })[c] as string);
}

/** jinja2's `title` filter (not str.title): each word's first character upper, the rest lower. */
function titleFilter(s: string): string {
  const out: string[] = [];
  let word = '';
  let sep = '';
  const flush = (): void => {
    if (word) out.push(word[0] === undefined ? '' : (() => {
      const first = String.fromCodePoint(word.codePointAt(0) as number);
      return first.toUpperCase() + word.slice(first.length).toLowerCase();
    })());
    word = '';
  };
  for (const ch of s) {
    if (isSpace(ch) || '-({[<'.includes(ch)) {
      flush();
      sep += ch;
    } else {
      if (sep) out.push(sep);
      sep = '';
      word += ch;
    }
  }
  flush();
  if (sep) out.push(sep);
  return out.join('');
}

/** `length` / `count`: len(). */
export function length(v: unknown): number {
  if (typeof v === 'string') return strLen(v);
  if (Array.isArray(v)) return seqTag(v)?.kind === 'generator' ? fail("object of type 'generator' has no len()") : v.length;
  const k = kindOf(v);
  if (k === Kind.Object) return dictKeys(v as object).length;
  if (k === Kind.Undefined) return 0;
  if (k === Kind.Kwargs) return (v as Kwargs).m.size;
  return fail(`object of type '${pyTypeName(v)}' has no len()`);
}

export function tojson(v: unknown): string {
  return toJSON(v, null, false, null, false);
}

export function trim(v: unknown): string {
  return pyStrip(pyStr(v), null, true, true);
}

/** list(value). */
function toList(v: unknown): unknown[] {
  return iterable(v).slice();
}

function intFilter(v: unknown, otherwise: unknown, base: number): unknown {
  if (typeof v === 'string') {
    const s = pyStrip(v, null, true, true).replace(/_/g, '');
    const prefixed = /^[-+]?0[xob]/i.test(s);
    if (base === 10 && /^[-+]?\d+$/.test(s)) {
      const n = BigInt(s);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    if (base !== 10 || prefixed) {
      const body = s.replace(/^([-+]?)0[xob]/i, '$1');
      const n = parseInt(body, base === 0 ? (/^[-+]?0x/i.test(s) ? 16 : /^[-+]?0o/i.test(s) ? 8 : /^[-+]?0b/i.test(s) ? 2 : 10) : base);
      if (!Number.isNaN(n)) return n;
    }
    const f = Number(s);
    if (s !== '' && !Number.isNaN(f) && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(inf|nan)/i.test(s)) return Number.isFinite(f) ? Math.trunc(f) : otherwise;
    return otherwise;
  }
  const n = numeric(v);
  if (n === null) return otherwise;
  if (typeof n === 'bigint') return n;
  return Number.isFinite(n) ? Math.trunc(n) : otherwise;
}

function floatFilter(v: unknown, otherwise: unknown): unknown {
  if (typeof v === 'string') {
    const s = pyStrip(v, null, true, true).replace(/_/g, '');
    if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return floatOf(Number(s));
    if (/^[-+]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[-+]?nan$/i.test(s)) return NaN;
    return otherwise;
  }
  const n = numeric(v);
  return n === null ? otherwise : floatOf(Number(n));
}

function roundFilter(v: unknown, precision: number, method: string): unknown {
  const n = numeric(v);
  if (n === null) return fail(`type ${pyTypeName(v)} doesn't define __round__ method`);
  const x = Number(n);
  const f = 10 ** precision;
  if (method === 'ceil') return floatOf(Math.ceil(x * f) / f);
  if (method === 'floor') return floatOf(Math.floor(x * f) / f);
  if (kindOf(v) === Kind.Integer || typeof v === 'boolean') return precision >= 0 ? Number(n) : Math.round(x * f) / f;
  // round(): correctly rounded (toFixed rounds the exact binary value), ties to even.
  const scaled = x * f;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled)) {
    let r = Math.floor(scaled);
    if (r % 2 !== 0) r += 1;
    return floatOf(r / f);
  }
  return floatOf(Number(x.toFixed(Math.max(0, Math.min(precision, 100)))));
}

/** jinja2's do_indent: lines split as str.splitlines does, then joined with '\n'. */
function indentFilter(s: string, width: unknown, first: boolean, blank: boolean): string {
  const pad = typeof width === 'string' ? width : ' '.repeat(Number(width));
  const lines = pySplitlines(s + '\n');
  let rv: string;
  if (blank) rv = lines.join('\n' + pad);
  else {
    rv = lines.shift() ?? '';
    if (lines.length > 0) rv += '\n' + lines.map((l) => (l ? pad + l : l)).join('\n');
  }
  return first ? pad + rv : rv;
}

function truncate(s: string, length: number, killwords: boolean, end: string, leeway: number): string {
  const cs = chars(s);
  if (cs.length <= length + leeway) return s;
  if (killwords) return cs.slice(0, length - strLen(end)).join('') + end;
  const head = cs.slice(0, length - strLen(end)).join('');
  const cut = head.lastIndexOf(' ');
  return (cut >= 0 ? head.slice(0, cut) : head) + end;
}

/** An item's attribute for sort/map/groupby: dotted path, digits as indexes (environment.getitem). */
function attributeOf(item: unknown, attribute: unknown): unknown {
  if (typeof attribute === 'number') return readItem(item, attribute);
  let value = item;
  for (const part of String(attribute).split('.')) {
    value = /^\d+$/.test(part) ? readItem(value, Number(part)) : readItem(value, part);
  }
  return value;
}

function applyTest(name: unknown, value: unknown, rest: readonly unknown[]): boolean {
  if (name === undefined || name === null) return truthy(value);
  const test = TESTS.get(String(name));
  if (!test) return fail(`No test named ${String(name)}.`);
  return test(value, rest[0]);
}

function selectFilter(v: unknown, args: readonly unknown[], select: boolean, byAttr: boolean): unknown[] {
  const items = toList(v);
  if (byAttr) {
    const [attribute, testName, ...rest] = args;
    return items.filter((x) => applyTest(testName, attributeOf(x, attribute), rest) === select);
  }
  const [testName, ...rest] = args;
  return items.filter((x) => applyTest(testName, x, rest) === select);
}

function mapFilter(v: unknown, args: readonly unknown[], kwargs: ReadonlyMap<string, unknown>): unknown[] {
  const items = toList(v);
  if (kwargs.has('attribute')) {
    const attribute = kwargs.get('attribute');
    const otherwise = kwargs.get('default');
    return items.map((x) => {
      const value = attributeOf(x, attribute);
      return value === undefined && kwargs.has('default') ? otherwise : value;
    });
  }
  const [name, ...rest] = args;
  if (typeof name !== 'string') return fail('map requires a filter argument');
  return items.map((x) => (rest.length === 0 ? filterNamed(name, x) : filterCalled(name, x, rest, new Map())));
}

function dictsort(v: unknown, caseSensitive: boolean, by: string, reverse: boolean): unknown[] {
  if (kindOf(v) !== Kind.Object) fail('You can only sort by either "key" or "value"');
  const o = v as object;
  const pos = by === 'key' ? 0 : by === 'value' ? 1 : fail('You can only sort by either "key" or "value"');
  const pairs = dictKeys(o).map((k) => makeTuple([k, dictGet(o, k)]));
  pairs.sort((a, b) => compareValues(a[pos], b[pos], caseSensitive));
  if (reverse) pairs.reverse();
  return pairs;
}

function sortFilter(v: unknown, reverse: boolean, caseSensitive: boolean, attribute: unknown): unknown[] {
  const items = toList(v);
  const key = (x: unknown): unknown => (attribute === null || attribute === undefined ? x : attributeOf(x, attribute));
  const sorted = items.map((x, i) => ({ x, i, k: key(x) }));
  sorted.sort((a, b) => compareValues(a.k, b.k, caseSensitive) || a.i - b.i);
  if (reverse) {
    // Python sorts stably with reverse=True keeping equal items in their original order.
    sorted.sort((a, b) => compareValues(b.k, a.k, caseSensitive) || a.i - b.i);
  }
  return sorted.map((s) => s.x);
}

function uniqueFilter(v: unknown, caseSensitive: boolean, attribute: unknown): unknown[] {
  const out: unknown[] = [];
  const seen: unknown[] = [];
  for (const x of toList(v)) {
    let k = attribute === null || attribute === undefined ? x : attributeOf(x, attribute);
    if (!caseSensitive && typeof k === 'string') k = k.toLowerCase();
    if (!seen.some((s) => pyEquals(s, k))) {
      seen.push(k);
      out.push(x);
    }
  }
  return out;
}

function joinFilter(v: unknown, separator: string, attribute: unknown): string {
  let items = toList(v);
  if (attribute !== null && attribute !== undefined) items = items.map((x) => attributeOf(x, attribute));
  return items.map(pyStr).join(separator);
}

function minMax(v: unknown, max: boolean, caseSensitive: boolean, attribute: unknown): unknown {
  const items = toList(v);
  if (items.length === 0) return undefined;
  const key = (x: unknown): unknown => (attribute === null || attribute === undefined ? x : attributeOf(x, attribute));
  let best = items[0];
  for (const x of items.slice(1)) {
    const c = compareValues(key(x), key(best), caseSensitive);
    if (max ? c > 0 : c < 0) best = x;
  }
  return best;
}

function sum(v: unknown, attribute: unknown, start: unknown): unknown {
  let total: unknown = start;
  for (const x of toList(v)) {
    const value = attribute === null || attribute === undefined ? x : attributeOf(x, attribute);
    const a = numeric(total);
    const b = numeric(value);
    if (a === null || b === null) fail(`unsupported operand type(s) for +: '${pyTypeName(total)}' and '${pyTypeName(value)}'`);
    const float = total instanceof FloatBox || value instanceof FloatBox || !Number.isInteger(Number(a)) || !Number.isInteger(Number(b));
    total = float ? floatOf(Number(a) + Number(b)) : Number(a) + Number(b);
  }
  return total;
}

function wordcount(s: string): number {
  return (s.match(/\w+/gu) ?? []).length;
}

export function filterNamed(name: string, v: unknown): unknown {
  return filterCalled(name, v, [], new Map());
}

function option(args: readonly unknown[], i: number, kwargs: ReadonlyMap<string, unknown>, key: string, otherwise: unknown): unknown {
  return i < args.length ? args[i] : kwargs.has(key) ? kwargs.get(key) : otherwise;
}

function tojsonCalled(v: unknown, args: readonly unknown[], kwargs: ReadonlyMap<string, unknown>): string {
  const ensureAscii = option(args, 0, kwargs, 'ensure_ascii', false);
  const indent = option(args, 1, kwargs, 'indent', null);
  const sepArg = option(args, 2, kwargs, 'separators', null);
  const sortKeys = option(args, 3, kwargs, 'sort_keys', false);
  let separators: [string, string] | null = null;
  if (Array.isArray(sepArg)) {
    if (sepArg.length !== 2 || typeof sepArg[0] !== 'string' || typeof sepArg[1] !== 'string') fail('separators must be a pair of strings');
    separators = [sepArg[0], sepArg[1]];
  } else if (sepArg !== null) fail(`cannot unpack non-iterable ${pyTypeName(sepArg)} object`);
  const indentValue = indent === null ? null : typeof indent === 'string' ? indent : Number(numeric(indent) ?? fail('indent must be an int'));
  return toJSON(v, indentValue, truthy(ensureAscii), separators, truthy(sortKeys));
}

/** Each filter's parameters after the value (jinja2/filters.py); other keywords are a TypeError. */
const PARAMS: Record<string, readonly string[]> = {
  tojson: ['ensure_ascii', 'indent', 'separators', 'sort_keys'],
  trim: ['chars'],
  replace: ['old', 'new', 'count'],
  indent: ['width', 'first', 'blank'],
  center: ['width'],
  truncate: ['length', 'killwords', 'end', 'leeway'],
  default: ['default_value', 'boolean'],
  d: ['default_value', 'boolean'],
  join: ['d', 'attribute'],
  sort: ['reverse', 'case_sensitive', 'attribute'],
  unique: ['case_sensitive', 'attribute'],
  dictsort: ['case_sensitive', 'by', 'reverse'],
  int: ['default', 'base'],
  float: ['default'],
  round: ['precision', 'method'],
  min: ['case_sensitive', 'attribute'],
  max: ['case_sensitive', 'attribute'],
  sum: ['attribute', 'start'],
  batch: ['linecount', 'fill_with'],
};
/** Parameters without a default. */
const REQUIRED: Record<string, number> = { replace: 2, batch: 1, attr: 1 };

function checkArguments(name: string, args: readonly unknown[], kwargs: ReadonlyMap<string, unknown>): void {
  const params = PARAMS[name];
  if (params) {
    for (const k of kwargs.keys()) if (!params.includes(k)) fail(`${name}() got an unexpected keyword argument '${k}'`);
    if (args.length > params.length) fail(`${name}() takes at most ${params.length} arguments after the value`);
  }
  const required = REQUIRED[name] ?? 0;
  if (args.length + kwargs.size < required) fail(`${name}() missing ${required - args.length} required positional argument(s)`);
}

export function filterCalled(name: string, v: unknown, args: unknown[], kwargs: ReadonlyMap<string, unknown>): unknown {
  if (name !== 'map' && name !== 'format' && name !== 'select' && name !== 'reject' && name !== 'selectattr' && name !== 'rejectattr') {
    checkArguments(name, args, kwargs);
  }
  const opt = (i: number, key: string, otherwise: unknown): unknown => option(args, i, kwargs, key, otherwise);
  switch (name) {
    case 'tojson':
      return tojsonCalled(v, args, kwargs);
    case 'safe':
      return v;
    case 'string':
      return pyStr(v);
    case 'length':
    case 'count':
      return length(v);
    case 'trim':
      return pyStrip(pyStr(v), (opt(0, 'chars', null) as string | null) ?? null, true, true);
    case 'upper':
      return pyStr(v).toUpperCase();
    case 'lower':
      return pyStr(v).toLowerCase();
    case 'title':
      return titleFilter(pyStr(v));
    case 'capitalize':
      return pyCapitalize(pyStr(v));
    case 'replace': {
      const count = opt(2, 'count', null);
      return pyReplace(pyStr(v), pyStr(opt(0, 'old', '')), pyStr(opt(1, 'new', '')), count === null ? -1 : Number(count));
    }
    case 'escape':
    case 'e':
    case 'forceescape':
      return escapeHtml(pyStr(v));
    case 'striptags':
      return pyStr(v).replace(/<!--.*?-->|<[^>]*>/gs, '').split(/\s+/).filter(Boolean).join(' ');
    case 'indent':
      return indentFilter(pyStr(v), opt(0, 'width', 4), truthy(opt(1, 'first', false)), truthy(opt(2, 'blank', false)));
    case 'center': {
      const width = Number(opt(0, 'width', 80));
      const s = pyStr(v);
      const total = width - strLen(s);
      if (total <= 0) return s;
      const left = Math.floor(total / 2) + (total & width & 1);
      return ' '.repeat(left) + s + ' '.repeat(total - left);
    }
    case 'truncate':
      return truncate(pyStr(v), Number(opt(0, 'length', 255)), truthy(opt(1, 'killwords', false)), pyStr(opt(2, 'end', '...')), Number(opt(3, 'leeway', 5)));
    case 'wordcount':
      return wordcount(pyStr(v));
    case 'format': {
      if (kwargs.size > 0 && args.length > 0) fail("can't handle positional and keyword arguments at the same time");
      const values = kwargs.size > 0 ? Object.fromEntries(kwargs) : makeTuple(args.slice());
      return percentFormat(pyStr(v), values);
    }
    case 'default':
    case 'd': {
      const otherwise = opt(0, 'default_value', '');
      const boolean = truthy(opt(1, 'boolean', false));
      return v === undefined || (boolean && !truthy(v)) ? otherwise : v;
    }
    case 'list':
      return toList(v);
    case 'first': {
      const items = toList(v);
      return items.length > 0 ? items[0] : undefined;
    }
    case 'last': {
      if (seqTag(v)?.kind === 'generator') return fail("'generator' object is not reversible");
      const items = typeof v === 'string' ? chars(v) : Array.isArray(v) ? v : toList(v);
      return items.length > 0 ? items[items.length - 1] : undefined;
    }
    case 'reverse':
      if (typeof v === 'string') return chars(v).reverse().join('');
      if (seqTag(v)?.kind === 'generator') return toList(v).reverse();
      return lazy(() => toList(v).reverse());
    case 'join':
      return joinFilter(v, pyStr(opt(0, 'd', '')), opt(1, 'attribute', null));
    case 'sort':
      return sortFilter(v, truthy(opt(0, 'reverse', false)), truthy(opt(1, 'case_sensitive', false)), opt(2, 'attribute', null));
    case 'unique':
      return lazy(() => uniqueFilter(v, truthy(opt(0, 'case_sensitive', false)), opt(1, 'attribute', null)));
    case 'dictsort':
      return dictsort(v, truthy(opt(0, 'case_sensitive', false)), String(opt(1, 'by', 'key')), truthy(opt(2, 'reverse', false)));
    case 'items':
      if (v === undefined) return generator([]);
      if (kindOf(v) !== Kind.Object) fail(`Can only get item pairs from a mapping.`);
      return lazy(() => dictKeys(v as object).map((k) => makeTuple([k, dictGet(v as object, k)])));
    case 'map':
      return lazy(() => mapFilter(v, args, kwargs));
    case 'select':
    case 'reject':
      return lazy(() => selectFilter(v, args, name === 'select', false));
    case 'selectattr':
    case 'rejectattr':
      return lazy(() => selectFilter(v, args, name === 'selectattr', true));
    case 'attr':
      return readAttr(v, pyStr(args[0]));
    case 'int':
      return intFilter(v, opt(0, 'default', 0), Number(opt(1, 'base', 10)));
    case 'float':
      return floatFilter(v, opt(0, 'default', new FloatBox(0)));
    case 'abs': {
      const n = numeric(v);
      if (n === null) return fail(`bad operand type for abs(): '${pyTypeName(v)}'`);
      if (typeof n === 'bigint') return n < 0n ? -n : n;
      return v instanceof FloatBox || !Number.isInteger(n) ? floatOf(Math.abs(n)) : Math.abs(n);
    }
    case 'round':
      return roundFilter(v, Number(opt(0, 'precision', 0)), String(opt(1, 'method', 'common')));
    case 'min':
    case 'max':
      return minMax(v, name === 'max', truthy(opt(0, 'case_sensitive', false)), opt(1, 'attribute', null));
    case 'sum':
      return sum(v, opt(0, 'attribute', null), opt(1, 'start', 0));
    case 'batch': {
      const size = Number(opt(0, 'linecount', 1));
      const items = toList(v);
      const out: unknown[][] = [];
      for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
      const fill = opt(1, 'fill_with', null);
      const last = out.at(-1);
      if (fill !== null && last && last.length < size) while (last.length < size) last.push(fill);
      return generator(out);
    }
    case 'bool':
      return truthy(v);
    case 'pprint':
      return pyStr(v);
  }
  return fail(`No filter named '${name}'.`);
}

export { isSpace };
