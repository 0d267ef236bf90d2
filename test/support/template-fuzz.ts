/**
 * Seeded random jinja templates for differential testing of the template compiler: expressions
 * built from the names of the semantics context (test/support/template-semantics.ts), literals,
 * operators, filters, tests, member access, calls and slices; statements with if/for/set,
 * break/continue, loop.* and namespaces. Many are nonsense on purpose: where jinja2 raises, the
 * compiled template must raise too (template-probes.ts).
 */
import { rng } from './splits.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const NAMES = ['s', 'e', 'pad', 'csv', 'uni', 'n', 'f', 'z', 'neg', 't', 'fa', 'nul', 'undef', 'arr', 'empty', 'strs', 'nums', 'obj', 'eobj', 'people', 'pairs', 'msgs'];
const LITERALS = ["'a'", "''", "'x,y'", "'He'", '0', '1', '2', '-1', '2.0', '0.5', 'true', 'false', 'none', '[]', "[1, 'a']", "{'k': 1}", "('a', 'b')"];
const ATTRS = ['role', 'content', 'name', 'a', 'b', 'c', 'k', 'length', 'tool_calls', 'items', 'get', 'upper', 'zz'];
const BINARY = ['+', '-', '*', '/', '//', '%', '~', '==', '!=', '<', '>', '<=', '>=', 'and', 'or', 'in', 'not in', '**'];
const FILTERS = [
  'length', 'tojson', 'trim', 'upper', 'lower', 'title', 'capitalize', 'string', 'int', 'float', 'abs', 'first', 'last',
  'reverse', 'sort', 'unique', 'list', 'join', 'items', 'keys', 'values', 'dictsort', 'safe', 'bool', 'indent', 'wordcount',
  "join(', ')", "default('D')", "default('D', true)", 'tojson(indent=2)', 'tojson(sort_keys=true)', 'tojson(ensure_ascii=true)',
  "map(attribute='name')", "selectattr('name')", "rejectattr('age', 'none')", "selectattr('role', 'equalto', 'user')",
  'sort(reverse=true)', "sort(attribute='name')", "replace('a', 'b')", 'int(7)', 'indent(2, true)', 'dictsort(by="value")',
  "tojson(separators=(',', ':'))", "join(separator='-')", 'int(default=3)', 'sort(false, true)', "map(attribute='k', default=0)",
  "selectattr('age', 'odd')", "rejectattr('name', 'lower')", 'tojson(indent=1, ensure_ascii=true, sort_keys=true)', "replace('', '-', 2)",
];
const TESTS = ['defined', 'undefined', 'none', 'string', 'number', 'integer', 'mapping', 'sequence', 'iterable', 'boolean', 'true', 'false', 'callable', 'lower', 'upper', 'odd', 'even'];
const METHODS = [
  "startswith('H')", "endswith('d')", "split(',')", 'split()', "split(',', 1)", 'strip()', "strip('\\n')", 'lstrip()', 'rstrip()',
  'upper()', 'lower()', 'title()', 'capitalize()', "replace('l', 'L')", "get('a')", "get('zz', 1)", 'items()', 'keys()', 'values()',
];

export class TemplateFuzzer {
  private readonly r: Rand;
  /** Loop variables in scope while generating a loop body. */
  private loopVars: string[] = [];
  private inLoop = 0;
  /** Whether the template being generated defines `mac(p, q=...)`. */
  private macros = false;

  constructor(seed: number) {
    this.r = rng(seed);
  }

  private atom(): string {
    const k = this.r();
    if (k < 0.45) return pick(this.r, this.loopVars.length > 0 && this.r() < 0.5 ? this.loopVars : NAMES);
    if (k < 0.75) return pick(this.r, LITERALS);
    if (k < 0.85 && this.inLoop > 0) {
      return pick(this.r, ['loop.index', 'loop.index0', 'loop.first', 'loop.last', 'loop.length', 'loop.previtem', 'loop.nextitem', 'loop.revindex', 'loop.revindex0', 'loop']);
    }
    if (k < 0.9) return 'ns.v';
    if (k < 0.95 && this.macros) return pick(this.r, ['mac(n)', 'mac(s, q=arr)', 'mac()', 'mac(1, 2, 3)', 'mac(q=1)', 'mac(zz=1)', `mac(${pick(this.r, NAMES)})`]);
    return pick(this.r, ['range(3)', "namespace(a=1)", "raise_exception('boom')", "strftime_now('%Y') | length"]);
  }

  /** An atom that can take `.x`, `[i]` or a call after it. */
  private primary(): string {
    const a = this.atom();
    return /^[\w.]+$/.test(a) && !/^-?\d/.test(a) ? a : `(${a})`;
  }

  /** An operand of a binary operator: compound expressions in parentheses. */
  private operand(depth: number): string {
    const e = this.expr(depth);
    return /\s/.test(e) && !/^\(.*\)$/.test(e) ? `(${e})` : e;
  }

  expr(depth = 0): string {
    if (depth > 2 || this.r() < 0.3) return this.atom();
    const k = Math.floor(this.r() * 11);
    switch (k) {
      case 0:
        return `${this.operand(depth + 1)} ${pick(this.r, BINARY)} ${this.operand(depth + 1)}`;
      case 1:
        return `(${this.expr(depth + 1)} ${pick(this.r, BINARY)} ${this.expr(depth + 1)})`;
      case 2:
        return `${this.operand(depth + 1)} | ${pick(this.r, FILTERS)}`;
      case 3:
        return `${this.operand(depth + 1)} is ${this.r() < 0.3 ? 'not ' : ''}${pick(this.r, TESTS)}`;
      case 4:
        return `${this.primary()}.${pick(this.r, ATTRS)}`;
      case 5:
        return `${this.primary()}[${pick(this.r, ['0', '-1', '1', "'a'", "'role'", 'n', '2'])}]`;
      case 6:
        return `${this.primary()}.${pick(this.r, METHODS)}`;
      case 7:
        return `${this.primary()}[${pick(this.r, ['1:', ':-1', '::-1', '::2', '-2:', '1:3'])}]`;
      case 8:
        return `not ${this.operand(depth + 1)}`;
      case 9:
        return `${this.operand(depth + 1)} if ${this.operand(depth + 1)} else ${this.operand(depth + 1)}`;
      default:
        return `(${this.operand(depth + 1)} if ${this.operand(depth + 1)})`;
    }
  }

  private statement(depth: number): string {
    const k = Math.floor(this.r() * (depth > 2 ? 4 : 9));
    switch (k) {
      case 0:
      case 1:
        return `{{ ${this.expr()} }}`;
      case 2:
        return pick(this.r, ['x', '\n', ' | ', '  ']);
      case 3: {
        if (this.inLoop > 0 && this.r() < 0.3) return pick(this.r, ['{% break %}', '{% continue %}']);
        const target = pick(this.r, ['v', 'w', 'ns.v', ...this.loopVars]);
        return `{% set ${target} = ${this.expr()} %}`;
      }
      case 4:
      case 5:
        return `{% if ${this.expr()} %}${this.block(depth + 1)}${this.r() < 0.5 ? `{% elif ${this.expr()} %}${this.block(depth + 1)}` : ''}${this.r() < 0.5 ? `{% else %}${this.block(depth + 1)}` : ''}{% endif %}`;
      case 6:
        if (this.r() < 0.3) return `{% set a, b = ${pick(this.r, ['pairs[0]', 'pairs', 'arr', "('p', 'q')", 's', "obj.items()[0]"])} %}{{ a }}{{ b }}`;
        if (this.r() < 0.3) return `{% filter ${pick(this.r, ['upper', 'trim', 'length', "replace('a', 'b')", 'tojson'])} %}${this.block(depth + 1)}{% endfilter %}`;
        return `{%- set ${pick(this.r, ['v', 'w'])} -%}${this.block(depth + 1)}{%- endset %}`;
      default:
        return this.loop(depth);
    }
  }

  private loop(depth: number): string {
    const tuple = this.r() < 0.2;
    const vars = tuple ? ['a', 'b'] : [pick(this.r, ['x', 'm', 'v'])];
    const iterable = tuple ? pick(this.r, ['pairs', 'obj.items()', 'arr', "[[1, 2], [3, 4]]"]) : pick(this.r, ['arr', 'msgs', 'people', 'strs', 'obj', 'empty', 's', 'undef', 'range(3)', 'msgs[::-1]']);
    const filter = this.r() < 0.25 ? ` if ${this.withVars(vars, () => this.expr(1))}` : '';
    const body = this.withVars(vars, () => {
      this.inLoop++;
      try {
        return this.block(depth + 1);
      } finally {
        this.inLoop--;
      }
    });
    const otherwise = this.r() < 0.3 ? `{% else %}${this.block(depth + 1)}` : '';
    return `{% for ${vars.join(', ')} in ${iterable}${filter} %}${body}${otherwise}{% endfor %}`;
  }

  private withVars<T>(vars: string[], f: () => T): T {
    const saved = this.loopVars;
    this.loopVars = [...saved, ...vars];
    try {
      return f();
    } finally {
      this.loopVars = saved;
    }
  }

  private block(depth: number): string {
    const n = 1 + Math.floor(this.r() * 3);
    let out = '';
    for (let i = 0; i < n; i++) out += this.statement(depth);
    return out;
  }

  template(): string {
    this.macros = false;
    let head = '{% set ns = namespace(v=0) %}';
    if (this.r() < 0.4) {
      const body = this.withVars(['p', 'q'], () => this.block(1));
      head += `{% macro mac(p, q=${pick(this.r, ['1', 'p', "'d'", 'none', 'p | length'])}) %}${body}{% endmacro %}`;
      this.macros = true;
    }
    return head + this.block(0);
  }
}
