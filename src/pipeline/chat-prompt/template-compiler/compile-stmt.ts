/**
 * Statements → JS statements appending to an output variable. Loops follow jinja2: the iterable
 * (and any `if` filter) is evaluated before the first iteration, each iteration starts without
 * what the previous one assigned, what an iteration printed before a break/continue is kept, and
 * the else block (which does not see the loop's variables) runs when no iteration completed.
 */
import type { For, Macro, SetStatement, Statement } from './ast.js';
import { compileFilter } from './compile-call.js';
import { ExprCompiler, isConstantExpression } from './compile-expr.js';
import { js, scopeVar, type Emitter, type Frame } from './emitter.js';
import { Unsupported, type ForScope, type ScopeTable } from './scopes.js';

export class StatementCompiler {
  /** How many if/else, set or filter blocks enclose the statement being compiled. */
  private nested = 0;

  constructor(
    private readonly em: Emitter,
    private readonly table: ScopeTable,
  ) {}

  block(statements: readonly Statement[], frames: readonly Frame[], out: string): string {
    return statements.map((s) => this.statement(s, frames, out)).join('\n');
  }

  private statement(s: Statement, frames: readonly Frame[], out: string): string {
    const ec = new ExprCompiler(this.em, frames);
    switch (s.type) {
      case 'Comment':
        return '';
      case 'If': {
        const test = ec.truthy(ec.expr(s.test));
        const body = this.nestedBlock(s.body, frames, out);
        const alternate = s.alternate.length > 0 ? ` else {\n${this.nestedBlock(s.alternate, frames, out)}\n}` : '';
        return `if (${test}) {\n${body}\n}${alternate}`;
      }
      case 'For':
        return this.forLoop(s, frames, out);
      case 'Set':
        return this.set(s, frames, ec);
      case 'Break':
      case 'Continue':
        return `${s.type === 'Break' ? 'break' : 'continue'} for${this.controlTarget(frames).id};`;
      case 'FilterStatement': {
        const buffer = `fb${this.em.id()}`;
        const filtered = compileFilter(ec, js(buffer, 'string', true, true), s.filter);
        const body = this.nestedBlock(s.body, frames, buffer);
        // jinja2 writes a filter block's result into the output as is: only a string joins.
        return `{\nlet ${buffer} = '';\n${body}\n${out} += ${filtered.type === 'string' ? filtered.code : `${ec.h('blockText')}(${filtered.code})`};\n}`;
      }
      case 'Macro':
        return this.macro(s, frames);
      case 'CallStatement':
        throw new Unsupported(`${s.type} statements`);
      default: {
        const oc = isConstantExpression(s) ? new ExprCompiler(this.em, frames, true) : ec;
        return `${out} += ${oc.printed(oc.expr(s))};`;
      }
    }
  }

  /** The loop a break/continue here leaves: the innermost loop whose body (not else) holds it. */
  private controlTarget(frames: readonly Frame[]): ForScope {
    for (let i = frames.length - 1; i >= 0; i--) {
      const f = frames[i];
      if (f.kind === 'for' && f.inBody) return f.scope;
    }
    throw new Unsupported('break/continue outside a loop body');
  }

  private nestedBlock(statements: readonly Statement[], frames: readonly Frame[], out: string): string {
    this.nested++;
    try {
      return this.block(statements, frames, out);
    } finally {
      this.nested--;
    }
  }

  /** A `set` straight in a macro body (not under if/for/set/filter) binds its names for the rest of it. */
  private markDefinite(names: readonly string[], frames: readonly Frame[]): void {
    const f = this.nested === 0 ? frames.at(-1) : undefined;
    if (f?.kind === 'macro') for (const n of names) f.definite.add(n);
  }

  /** Where `set name` writes: the innermost loop scope, else the top level. */
  private target(name: string, frames: readonly Frame[]): string {
    for (let i = frames.length - 1; i >= 0; i--) {
      const f = frames[i];
      if (f.kind === 'for' || f.kind === 'macro') return scopeVar(f.scope, name);
    }
    return this.em.global(name);
  }

  /**
   * A macro: a function of the interpreter's argument list, bound like bindMacroArguments (all
   * parameters first, absent ones undefined, then the missing defaults in order), returning the
   * body's output.
   */
  private macro(node: Macro, frames: readonly Frame[]): string {
    const scope = this.table.macros.get(node);
    if (!scope) throw new Unsupported('a macro missed by scope analysis');
    const inner: Frame[] = [...frames, { kind: 'macro', scope, definite: new Set(scope.params) }];
    const { result, temps } = this.em.inFunction(() => {
      const ec = new ExprCompiler(this.em, inner);
      const display = JSON.stringify(`'${node.name.value}'`);
      const lines = [`const a = ${ec.h('macroArgs')}(args, ${JSON.stringify(scope.params)}, ${display});`];
      scope.params.forEach((p, i) => lines.push(`let ${scopeVar(scope, p)} = a[${i}] === U ? undefined : a[${i}];`));
      const others = [...scope.assigned].filter((n) => !scope.params.includes(n));
      if (others.length > 0) lines.push(`let ${others.map((n) => `${scopeVar(scope, n)} = U`).join(', ')};`);
      node.args.forEach((p, i) => {
        if (p.type === 'KeywordArgumentExpression') {
          lines.push(`if (a[${i}] === U) ${scopeVar(scope, p.key.value)} = ${ec.expr(p.value).code};`);
        }
      });
      // The body's own top level, wherever the macro statement sits.
      const saved = this.nested;
      this.nested = 0;
      try {
        lines.push("let mo = '';", this.block(node.body, inner, 'mo'), 'return mo;');
      } finally {
        this.nested = saved;
      }
      return lines.join('\n');
    });
    const declare = temps.length > 0 ? `let ${temps.join(', ')};\n` : '';
    return `${this.target(node.name.value, frames)} = function (args) {\n${declare}${result}\n};`;
  }

  private set(s: SetStatement, frames: readonly Frame[], ec: ExprCompiler): string {
    const value = `v${this.em.id()}`;
    let head: string;
    if (s.value) head = `const ${value} = ${ec.expr(s.value).code};`;
    else head = `let ${value} = '';\n${this.nestedBlock(s.body, frames, value)}`;
    const target = s.assignee;
    let assign: string;
    if (target.type === 'Identifier') {
      assign = `${this.target(target.value, frames)} = ${value};`;
      this.markDefinite([target.value], frames);
    } else if (target.type === 'TupleLiteral') {
      const names = target.value.map((t) => (t.type === 'Identifier' ? t.value : ''));
      this.markDefinite(names, frames);
      assign =
        `${ec.h('unpackSet')}(${value}, ${names.length});\n` +
        names.map((n, i) => `${this.target(n, frames)} = ${value}[${i}];`).join('\n');
    } else if (target.type === 'MemberExpression') {
      // The interpreter reads the property's name even for `ns[x]`.
      if (target.property.type !== 'Identifier') throw new Unsupported('assignment to a non-identifier member');
      const object = ec.expr(target.object);
      assign = `${ec.h('setAttr')}(${object.code}, ${JSON.stringify(target.property.value)}, ${value});`;
    } else {
      throw new Unsupported(`assignment to ${target.type}`);
    }
    return `{\n${head}\n${assign}\n}`;
  }

  private forLoop(node: For, frames: readonly Frame[], out: string): string {
    const scope = this.table.fors.get(node);
    if (!scope) throw new Unsupported('a loop missed by scope analysis');
    const k = scope.id;
    const outer = new ExprCompiler(this.em, frames);
    const select = node.iterable.type === 'SelectExpression' ? node.iterable : null;
    const iterable = outer.expr(select ? select.lhs : node.iterable);
    const unpack = node.loopvar.type === 'TupleLiteral' ? node.loopvar.value.length : 0;
    const lines: string[] = ['{'];
    lines.push(`let ${[...scope.assigned].map((n) => `${scopeVar(scope, n)} = U`).join(', ')};`);

    if (select) {
      // `for x in xs if test`: items are chosen first, the test seeing only the loop variables.
      const vars = new Map(scope.loopVars.map((n) => [n, `c${k}_${n}`]));
      const test = new ExprCompiler(this.em, [...frames, { kind: 'filter', vars }]);
      const cond = test.truthy(test.expr(select.test));
      lines.push(`const all${k} = ${outer.h('iterable')}(${iterable.code});`, `const it${k} = [];`);
      lines.push(`let ${[...new Set(vars.values())].join(', ')};`);
      lines.push(`for (let j = 0; j < all${k}.length; j++) {`, `const c = all${k}[j];`);
      if (unpack) lines.push(`${outer.h('checkUnpack')}(c, ${unpack});`);
      scope.loopVars.forEach((n, i) => lines.push(`c${k}_${n} = ${unpack ? `c[${i}]` : 'c'};`));
      lines.push(`if (${cond}) it${k}.push(c);`, '}');
    } else {
      lines.push(`const it${k} = ${outer.h('iterable')}(${iterable.code});`);
      if (unpack) lines.push(`for (const c of it${k}) ${outer.h('checkUnpack')}(c, ${unpack});`);
    }
    lines.push(`const n${k} = it${k}.length;`, `let empty${k} = true;`);

    // jinja2 keeps what an iteration printed before a break/continue.
    const bodyOut = out;
    const body = this.block(node.body, [...frames, { kind: 'for', scope, inBody: true }], bodyOut);
    const generic = this.em.genericLoops.has(k);
    if (generic) lines.push(`let lo${k};`);
    lines.push(`for${k}: for (let i${k} = 0; i${k} < n${k}; i${k}++) {`);
    if (unpack) {
      lines.push(`const c = it${k}[i${k}];`);
      scope.loopVars.forEach((n, i) => lines.push(`${scopeVar(scope, n)} = c[${i}];`));
    } else {
      lines.push(`${scopeVar(scope, scope.loopVars[0])} = it${k}[i${k}];`);
    }
    // jinja2 (2.9+): what an iteration assigns is its own; the next one reads the outer value again.
    const iterationLocals = [...scope.assigned].filter((n) => !scope.loopVars.includes(n));
    if (iterationLocals.length > 0) lines.push(`${iterationLocals.map((n) => `${scopeVar(scope, n)} = U`).join('; ')};`);
    if (generic) lines.push(`lo${k} = ${outer.h('loopObject')}(i${k}, it${k});`);
    lines.push(body);
    lines.push(`empty${k} = false;`, '}');
    if (node.defaultBlock.length > 0) {
      const elseFrames: Frame[] = [...frames, { kind: 'for', scope, inBody: false }];
      // The else block does not see the loop's variables (nor what its iterations set).
      const reset = [...scope.assigned].map((n) => `${scopeVar(scope, n)} = U;`).join(' ');
      lines.push(`if (empty${k}) {`, reset, this.block(node.defaultBlock, elseFrames, out), '}');
    }
    lines.push('}');
    return lines.join('\n');
  }
}
