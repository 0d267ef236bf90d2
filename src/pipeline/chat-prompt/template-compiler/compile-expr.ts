/**
 * Expressions → JS expressions. Evaluation order follows the interpreter wherever an error could
 * tell the difference (call arguments before the callee, a slice's object check before its
 * bounds); values stay unboxed (see values.ts) and the static type of a result lets common
 * cases (string concatenation, boolean tests, printing strings) skip the generic helpers.
 */
import type { Expression, MemberExpression, BinaryExpression, TestExpression } from './ast.js';
import { compileCall, compileFilter } from './compile-call.js';
import { Emitter, js, scopeVar, type ExprContext, type Frame, type Js } from './emitter.js';
import { Unsupported, type ForScope } from './scopes.js';
import { DICT_METHODS } from './methods.js';
import { INLINE_TESTS, TESTS } from './tests.js';
import { FloatBox } from './values.js';

const UNDEFINED = js('undefined', 'any', true, true);

/** `loop.<field>` read straight from the loop counters of scope `k`. */
const LOOP_FIELDS: Record<string, (k: number) => Js> = {
  index: (k) => js(`(i${k} + 1)`, 'number', true),
  index0: (k) => js(`i${k}`, 'number', true, true),
  revindex: (k) => js(`(n${k} - i${k})`, 'number', true),
  revindex0: (k) => js(`(n${k} - i${k} - 1)`, 'number', true),
  first: (k) => js(`(i${k} === 0)`, 'boolean', true),
  last: (k) => js(`(i${k} === n${k} - 1)`, 'boolean', true),
  length: (k) => js(`n${k}`, 'number', true, true),
  previtem: (k) => js(`(i${k} > 0 ? it${k}[i${k} - 1] : undefined)`, 'any', true),
  nextitem: (k) => js(`(i${k} < n${k} - 1 ? it${k}[i${k} + 1] : undefined)`, 'any', true),
};

const COMPARISONS = new Set(['<', '>', '<=', '>=']);

export class ExprCompiler implements ExprContext {
  constructor(
    readonly em: Emitter,
    readonly frames: readonly Frame[],
    /** Compiling a `{{ }}` whose expression is all constants, which jinja2's optimizer evaluates while compiling. */
    readonly constantOutput = false,
  ) {}

  h(name: string): string {
    return this.em.helper(name);
  }

  /** JS that is true exactly when the value is truthy in the interpreter. */
  truthy(v: Js): string {
    switch (v.type) {
      case 'boolean':
        return v.code;
      case 'string':
        return `(${v.code} !== '')`;
      case 'number':
        return `!!${v.code}`;
      default:
        return `${this.h('truthy')}(${v.code})`;
    }
  }

  /** Text `{{ v }}` appends. */
  printed(v: Js): string {
    return v.type === 'string' ? v.code : `${this.h('printed')}(${v.code})`;
  }

  /** `v` as something safe to read twice: itself when simple, else through a temporary. */
  hold(v: Js): { first: string; again: string } {
    if (v.simple) return { first: v.code, again: v.code };
    const t = this.em.temp();
    return { first: `(${t} = ${v.code})`, again: t };
  }

  /** The scope whose `loop` a read here sees, or null when no loop encloses it. */
  loopOwner(): ForScope | null {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i];
      // Outside its own loops a macro would see its caller's `loop`.
      if (f.kind === 'macro') throw new Unsupported('`loop` read in a macro outside its own loops');
      if (f.kind !== 'for') continue;
      if (!f.inBody) throw new Unsupported('`loop` read in a for-else block');
      return f.scope;
    }
    return null;
  }

  lookup(name: string): Js {
    switch (name) {
      case 'true':
      case 'True':
        return js('true', 'boolean', true, true);
      case 'false':
      case 'False':
        return js('false', 'boolean', true, true);
      case 'none':
      case 'None':
        return js('null', 'any', true, true);
      case 'raise_exception':
        return js(this.h('raiseException'), 'any', true, true);
      case 'range':
        return js(this.h('range'), 'any', true, true);
      case 'strftime_now':
        return js(this.h('strftimeNow'), 'any', true, true);
      case 'namespace':
        return js(this.h('namespace'), 'any', true, true);
    }
    if (name === 'loop') {
      const owner = this.loopOwner();
      if (owner) {
        this.em.genericLoops.add(owner.id);
        return js(`lo${owner.id}`, 'any', true, true);
      }
    }
    const candidates: string[] = [];
    let code: string | null = null;
    for (let i = this.frames.length - 1; i >= 0 && code === null; i--) {
      const f = this.frames[i];
      if (f.kind === 'filter') {
        code = f.vars.get(name) ?? null;
        continue;
      }
      if (f.kind === 'macro') {
        if (f.scope.assigned.has(name)) {
          const v = scopeVar(f.scope, name);
          if (f.definite.has(name)) code = v;
          else candidates.push(v);
        }
        // jinja2 scopes macros lexically: past its own scope the lookup continues where it was defined.
        continue;
      }
      if (!f.scope.assigned.has(name)) continue;
      const v = scopeVar(f.scope, name);
      // A loop variable is set before every iteration, so in the body it is always there.
      if (f.inBody && f.scope.loopVars.includes(name)) code = v;
      else candidates.push(v);
    }
    code ??= this.em.global(name);
    for (let i = candidates.length - 1; i >= 0; i--) code = `(${candidates[i]} !== U ? ${candidates[i]} : ${code})`;
    return js(code, 'any', true, candidates.length === 0);
  }

  expr(node: Expression): Js {
    switch (node.type) {
      case 'StringLiteral':
        return js(JSON.stringify(node.value), 'string', true, true);
      case 'IntegerLiteral':
        return js(Object.is(node.value, -0) ? '(-0)' : node.value < 0 ? `(${node.value})` : String(node.value), 'number', true, true);
      case 'FloatLiteral':
        if (Number.isInteger(node.value)) {
          const key = Object.is(node.value, -0) ? 'float:-0' : `float:${node.value}`;
          return js(this.em.constant(new FloatBox(node.value), key), 'any', true, true);
        }
        return js(node.value < 0 ? `(${node.value})` : String(node.value), 'number', true, true);
      case 'Identifier':
        return this.lookup(node.value);
      case 'ArrayLiteral': {
        const items = node.value.map((e) => this.expr(e));
        return js(`[${items.map((i) => i.code).join(', ')}]`, 'any', items.every((i) => i.safe));
      }
      case 'TupleLiteral': {
        const items = node.value.map((e) => this.expr(e));
        return js(`${this.h('makeTuple')}([${items.map((i) => i.code).join(', ')}])`, 'any', items.every((i) => i.safe));
      }
      case 'ObjectLiteral':
        return this.objectLiteral(node.value);
      case 'MemberExpression':
        return this.member(node);
      case 'CallExpression':
        return compileCall(this, node);
      case 'UnaryExpression': {
        const arg = this.expr(node.argument);
        if (node.operator.value === 'not') return js(`!${this.truthy(arg)}`, 'boolean', arg.safe);
        return js(`${this.h('unary')}(${JSON.stringify(node.operator.value)}, ${arg.code})`);
      }
      case 'BinaryExpression':
        return this.binary(node);
      case 'FilterExpression':
        return compileFilter(this, this.expr(node.operand), node.filter);
      case 'TestExpression':
        return this.test(node);
      case 'SelectExpression': {
        const test = this.expr(node.test);
        const lhs = this.expr(node.lhs);
        return js(`(${this.truthy(test)} ? ${lhs.code} : undefined)`, 'any', test.safe && lhs.safe);
      }
      case 'Ternary': {
        const c = this.expr(node.condition);
        const a = this.expr(node.trueExpr);
        const b = this.expr(node.falseExpr);
        return js(`(${this.truthy(c)} ? ${a.code} : ${b.code})`, a.type === b.type ? a.type : 'any', c.safe && a.safe && b.safe);
      }
      default:
        throw new Unsupported(`${node.type} expressions`);
    }
  }

  private objectLiteral(entries: ReadonlyMap<Expression, Expression>): Js {
    const parts: string[] = [];
    let safe = true;
    for (const [key, value] of entries) {
      // JS objects list integer-like keys first and treat __proto__ specially; a Map would not.
      if (key.type !== 'StringLiteral' || /^(0|[1-9]\d*)$/.test(key.value) || key.value === '__proto__') {
        throw new Unsupported('object literal key that is not a plain string');
      }
      const v = this.expr(value);
      safe &&= v.safe;
      parts.push(`${JSON.stringify(key.value)}: ${v.code}`);
    }
    return js(`{${parts.join(', ')}}`, 'any', safe);
  }

  private member(node: MemberExpression): Js {
    const p = node.property;
    if (!node.computed && p.type === 'Identifier') {
      if (node.object.type === 'Identifier' && node.object.value === 'loop' && p.value in LOOP_FIELDS) {
        const owner = this.loopOwner();
        if (owner) return LOOP_FIELDS[p.value](owner.id);
      }
      return this.staticAttr(this.expr(node.object), p.value);
    }
    if (p.type === 'SliceExpression') {
      const o = this.expr(node.object);
      const bounds = [p.start, p.stop, p.step].map((b) => (b ? this.expr(b) : UNDEFINED));
      const t = this.em.temp();
      // In an output jinja2 folds at compile time, a slice goes through getitem (Undefined when it cannot be taken).
      const folded = this.constantOutput ? ', true' : '';
      return js(`(${t} = ${this.h('sliceable')}(${o.code}), ${this.h('slice')}(${t}, ${bounds.map((b) => b.code).join(', ')}${folded}))`);
    }
    const o = this.expr(node.object);
    if (p.type === 'StringLiteral') return this.staticAttr(o, p.value);
    if (p.type === 'IntegerLiteral' && Number.isInteger(p.value)) {
      // Arrays index like .at(); anything else takes the interpreter-shaped path.
      const held = this.hold(o);
      const read = p.value >= 0 ? `${held.again}[${p.value}]` : `(${held.again}).at(${p.value})`;
      // Plain lists only: generators and dict views are not subscriptable, a range indexes itself.
      return js(`(Array.isArray(${held.first}) && ${held.again}[${this.h('SEQ')}] === undefined ? ${read} : ${this.h('item')}(${held.again}, ${this.expr(p).code}))`);
    }
    const k = this.expr(p);
    if (k.type === 'string') return js(`${this.h('attr')}(${o.code}, ${k.code})`, 'any', o.safe && k.safe);
    return js(`${this.h('item')}(${o.code}, ${k.code})`);
  }

  /**
   * `o.key` for a key known at compile time. A plain object (prototype Object.prototype) whose
   * key is neither inherited nor a builtin method name reads the property inline, so each site
   * gets its own inline cache; everything else goes through the generic `attr`.
   */
  private staticAttr(o: Js, key: string): Js {
    const generic = `${this.h('attr')}(%O, ${JSON.stringify(key)})`;
    if (key in Object.prototype || DICT_METHODS.has(key)) return js(generic.replace('%O', o.code), 'any', o.safe);
    const held = this.hold(o);
    const t = held.again;
    const code = `(${held.first} !== null && typeof ${t} === 'object' && GP(${t}) === OP ? ${t}[${JSON.stringify(key)}] : ${generic.replace('%O', t)})`;
    return js(code, 'any', o.safe);
  }

  private binary(node: BinaryExpression): Js {
    const op = node.operator.value;
    const l = this.expr(node.left);
    const r = this.expr(node.right);
    const safe = l.safe && r.safe;
    switch (op) {
      case 'and':
      case 'or': {
        if (l.type === 'boolean' && r.type === 'boolean') return js(`(${l.code} ${op === 'and' ? '&&' : '||'} ${r.code})`, 'boolean', safe);
        const held = this.hold(l);
        const test = this.truthy({ ...l, code: held.first });
        const type = l.type === r.type ? l.type : 'any';
        const code = op === 'and' ? `(${test} ? ${r.code} : ${held.again})` : `(${test} ? ${held.again} : ${r.code})`;
        return js(code, type, safe);
      }
      case '==':
      case '!=': {
        const not = op === '!=' ? '!' : '';
        if ((l.type === 'string' && r.type === 'string') || (l.type === 'number' && r.type === 'number')) {
          return js(`(${l.code} ${op}= ${r.code})`, 'boolean', safe);
        }
        if (r.type === 'string' && r.simple) return js(`${not}${this.h('eqString')}(${l.code}, ${r.code})`, 'boolean', safe);
        if (l.type === 'string' && l.simple) return js(`${not}${this.h('eqString')}(${r.code}, ${l.code})`, 'boolean', safe);
        return js(`${not}${this.h('looseEq')}(${l.code}, ${r.code})`, 'boolean', safe);
      }
      case 'in':
        return js(`${this.h('contains')}(${l.code}, ${r.code})`, 'boolean');
      case 'not in':
        return js(`${this.h('excludes')}(${l.code}, ${r.code})`, 'boolean');
      case '+':
        if (l.type === 'string' && r.type === 'string') return js(`(${l.code} + ${r.code})`, 'string', safe);
        if (l.type === 'string') return js(`${this.h('addToString')}(${l.code}, ${r.code})`, 'string');
        if (r.type === 'string') return js(`${this.h('addString')}(${l.code}, ${r.code})`, 'string');
        return js(`${this.h('add')}(${l.code}, ${r.code})`);
      case '~':
        if (l.type === 'string' && r.type === 'string') return js(`(${l.code} + ${r.code})`, 'string', safe);
        return js(`${this.h('concat')}(${l.code}, ${r.code})`, 'string');
    }
    if (COMPARISONS.has(op) && l.type === 'number' && r.type === 'number') return js(`(${l.code} ${op} ${r.code})`, 'boolean', safe);
    return js(`${this.h('binary')}(${JSON.stringify(op)}, ${l.code}, ${r.code})`, COMPARISONS.has(op) ? 'boolean' : 'any');
  }

  private test(node: TestExpression): Js {
    const name = node.test.value;
    if (!TESTS.has(name) || name === 'equalto' || name === 'eq') throw new Unsupported(`the test '${name}'`);
    const operand = this.expr(node.operand);
    const not = node.negate ? '!' : '';
    const inline = INLINE_TESTS.get(name);
    // Each inline test reads its operand once.
    if (inline) return js(`${not}(${inline(operand.code)})`, 'boolean', operand.safe);
    const canThrow = name === 'odd' || name === 'even';
    return js(`${not}${this.h('TESTS')}.get(${JSON.stringify(name)})(${operand.code})`, 'boolean', operand.safe && !canThrow);
  }
}

const CONSTANT_NAMES = new Set(['true', 'True', 'false', 'False', 'none', 'None']);

/**
 * Whether jinja2's optimizer can evaluate `node` while compiling: literals, operators, slices and
 * tests over literals (no variable, call or filter).
 */
export function isConstantExpression(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isConstantExpression);
  if (node instanceof Map) return [...node].every(([k, v]) => isConstantExpression(k) && isConstantExpression(v));
  if (typeof node !== 'object' || node === null) return true;
  const n = node as { type?: string; value?: unknown };
  if (n.type === 'Identifier') return CONSTANT_NAMES.has(n.value as string);
  if (n.type === 'CallExpression' || n.type === 'FilterExpression') return false;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' || k === 'test' && n.type === 'TestExpression') continue;
    if (typeof v === 'object' && v !== null && !isConstantExpression(v)) return false;
  }
  return true;
}
