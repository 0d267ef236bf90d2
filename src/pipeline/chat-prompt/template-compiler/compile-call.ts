/**
 * Calls (builtin functions, methods, function values) and filters → JS. Arguments are built the
 * interpreter's way: positional values, then one Kwargs when keywords were given. A few hot
 * string/object methods get helpers that skip the argument array when the receiver is the
 * expected type; anything else goes through the generic, interpreter-shaped path.
 */
import type { CallExpression, Expression } from './ast.js';
import { js, type ExprContext, type Js } from './emitter.js';
import { Unsupported } from './scopes.js';
import { FloatBox } from './values.js';

interface Args {
  readonly positional: Js[];
  readonly keywords: Array<[string, Js, Expression]>;
  readonly safe: boolean;
}

function compileArgs(ec: ExprContext, args: readonly Expression[]): Args {
  const positional: Js[] = [];
  const keywords: Array<[string, Js, Expression]> = [];
  for (const a of args) {
    if (a.type === 'SpreadExpression' || a.type === 'KeywordSpreadExpression') throw new Unsupported('argument unpacking');
    if (a.type === 'KeywordArgumentExpression') {
      if (keywords.some(([k]) => k === a.key.value)) throw new Unsupported('a repeated keyword argument');
      keywords.push([a.key.value, ec.expr(a.value), a.value]);
    } else positional.push(ec.expr(a));
  }
  const safe = positional.every((p) => p.safe) && keywords.every(([, v]) => v.safe);
  return { positional, keywords, safe };
}

/** The argument list the interpreter passes a function: positional values, then a Kwargs. */
function argArray(ec: ExprContext, a: Args): string {
  const items = a.positional.map((p) => p.code);
  if (a.keywords.length > 0) {
    items.push(`${ec.h('kwargs')}([${a.keywords.map(([k, v]) => `${JSON.stringify(k)}, ${v.code}`).join(', ')}])`);
  }
  return `[${items.join(', ')}]`;
}

const BUILTIN_CALLS = new Set(['raise_exception', 'range', 'strftime_now', 'namespace']);

/** Methods whose helpers take the receiver and up to two positional arguments directly. */
const METHOD_HELPERS: Record<string, { helper: string; arity: readonly number[] }> = {
  startswith: { helper: 'startswith', arity: [1] },
  endswith: { helper: 'endswith', arity: [1] },
  split: { helper: 'split', arity: [1] },
  strip: { helper: 'strip', arity: [0, 1] },
  lstrip: { helper: 'lstrip', arity: [0, 1] },
  rstrip: { helper: 'rstrip', arity: [0, 1] },
  title: { helper: 'title', arity: [0] },
  upper: { helper: 'upper', arity: [0] },
  lower: { helper: 'lower', arity: [0] },
  get: { helper: 'get', arity: [1] },
  items: { helper: 'items', arity: [0] },
};

/** `first` then `second`, in that order, even when JS would evaluate `second` first. */
function ordered(ec: ExprContext, first: Js, second: Js, build: (firstCode: string, secondCode: string) => string): string {
  if (first.safe || second.safe) return build(first.code, second.code);
  const t = ec.em.temp();
  return `(${t} = ${first.code}, ${build(t, second.code)})`;
}

export function compileCall(ec: ExprContext, node: CallExpression): Js {
  const a = compileArgs(ec, node.args);
  const args = js(argArray(ec, a), 'any', a.safe);
  const callee = node.callee;
  if (callee.type === 'Identifier' && BUILTIN_CALLS.has(callee.value)) {
    // Builtins can be neither reassigned (refused at compile time) nor shadowed by the context.
    return js(`${ec.expr(callee).code}(${args.code})`);
  }
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
    const name = callee.property.value;
    const self = ec.expr(callee.object);
    const fast = METHOD_HELPERS[name];
    if (fast && a.keywords.length === 0 && fast.arity.includes(a.positional.length)) {
      // The interpreter evaluates arguments first, then the receiver.
      // Helpers are named by arity (strip0, strip1) so the slow path passes the same arguments.
      const helper = ec.h(fast.helper + a.positional.length);
      if (a.positional.length === 0) return js(`${helper}(${self.code})`);
      return js(ordered(ec, a.positional[0], self, (arg, recv) => `${helper}(${recv}, ${arg})`));
    }
    return js(ordered(ec, args, self, (list, recv) => `${ec.h('callMethod')}(${recv}, ${JSON.stringify(name)}, ${list})`));
  }
  const fn = ec.expr(callee);
  return js(ordered(ec, args, fn, (list, f) => `${ec.h('callValue')}(${f}, ${list})`));
}

/** Filters whose result is always a string (or an error). */
const STRING_FILTERS = new Set(['tojson', 'trim', 'upper', 'lower', 'title', 'capitalize', 'indent', 'string', 'join', 'replace']);
const NUMBER_FILTERS = new Set(['length', 'count']);
const NAMED_HELPERS: Record<string, string> = { tojson: 'tojson', length: 'length', trim: 'trim' };

const NO_VALUE = Symbol('not a literal');

/** The value of a literal argument (the builtin constants cannot be reassigned), or NO_VALUE. */
function literalValue(e: Expression): unknown {
  switch (e.type) {
    case 'StringLiteral':
    case 'IntegerLiteral':
      return e.value;
    case 'FloatLiteral':
      return Number.isInteger(e.value) ? new FloatBox(e.value) : e.value;
    case 'Identifier':
      if (e.value === 'true' || e.value === 'True') return true;
      if (e.value === 'false' || e.value === 'False') return false;
      if (e.value === 'none' || e.value === 'None') return null;
  }
  return NO_VALUE;
}

export function compileFilter(ec: ExprContext, operand: Js, filter: Expression): Js {
  if (filter.type === 'Identifier') {
    const name = filter.value;
    const type = STRING_FILTERS.has(name) ? 'string' : NUMBER_FILTERS.has(name) ? 'number' : 'any';
    const helper = NAMED_HELPERS[name];
    if (helper) return js(`${ec.h(helper)}(${operand.code})`, type);
    return js(`${ec.h('filterNamed')}(${JSON.stringify(name)}, ${operand.code})`, type);
  }
  if (filter.type !== 'CallExpression' || filter.callee.type !== 'Identifier') throw new Unsupported(`a ${filter.type} filter`);
  const name = filter.callee.value;
  // jinja2 evaluates the operand, then the arguments, as the JS call below does.
  const a = compileArgs(ec, filter.args);
  let kwargs: string;
  const literals = a.keywords.map(([k, , node]): [string, unknown] => [k, literalValue(node)]);
  if (literals.every(([, v]) => v !== NO_VALUE)) {
    // Filters only read their keyword Map, so one per distinct literal set is shared.
    const key = `kw:${a.keywords.map(([k, v]) => `${k}=${v.code}`).join(',')}`;
    kwargs = ec.em.constant(new Map(literals), key);
  } else {
    kwargs = `${ec.h('kwargMap')}([${a.keywords.map(([k, v]) => `${JSON.stringify(k)}, ${v.code}`).join(', ')}])`;
  }
  const positional = `[${a.positional.map((p) => p.code).join(', ')}]`;
  const type = name === 'tojson' || name === 'join' || name === 'indent' || name === 'replace' ? 'string' : 'any';
  return js(`${ec.h('filterCalled')}(${JSON.stringify(name)}, ${operand.code}, ${positional}, ${kwargs})`, type);
}
