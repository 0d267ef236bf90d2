/**
 * Shared state of one compilation: temporaries, hoisted constants, the runtime helpers and
 * context names the generated function uses, and the scope frames code is generated in.
 */
import type { Expression } from './ast.js';
import type { ForScope, MacroScope } from './scopes.js';

export type JsType = 'string' | 'boolean' | 'number' | 'any';

/** A compiled expression: its JS source, what it is known to produce, and whether it can throw. */
export interface Js {
  readonly code: string;
  readonly type: JsType;
  /** Cannot throw, so evaluating it earlier or later than the interpreter does is unobservable. */
  readonly safe: boolean;
  /** A variable or literal: cheap and side-effect free to read twice. */
  readonly simple: boolean;
}

export const js = (code: string, type: JsType = 'any', safe = false, simple = false): Js => ({ code, type, safe, simple });

/** What call and filter compilation needs from the expression compiler. */
export interface ExprContext {
  readonly em: Emitter;
  h(name: string): string;
  expr(node: Expression): Js;
  truthy(v: Js): string;
}

export type Frame =
  | { readonly kind: 'for'; readonly scope: ForScope; readonly inBody: boolean }
  /** The `if` of `for x in xs if test`: evaluated before the loop, with only the loop variables set. */
  | { readonly kind: 'filter'; readonly vars: ReadonlyMap<string, string> }
  /**
   * A macro body: its own scope, then (by the compile-time restriction) the top level. `definite`
   * grows with the body's unconditional top-level `set`s: after one, the name never falls through.
   */
  | { readonly kind: 'macro'; readonly scope: MacroScope; readonly definite: Set<string> };

export class Emitter {
  /** Temporaries of the function being generated (the render function, or a macro's). */
  private temps = 0;
  private ids = 0;
  readonly constants: unknown[] = [];
  private readonly constantCodes = new Map<unknown, string>();
  /** Context names read or written at the top level, each held in a `g_<name>` variable. */
  readonly globals = new Set<string>();
  readonly helpers = new Set<string>();
  /** Loops whose body uses `loop` as a whole object rather than `loop.<field>`. */
  readonly genericLoops = new Set<number>();

  temp(): string {
    return `t${this.temps++}`;
  }

  tempNames(): string[] {
    return Array.from({ length: this.temps }, (_, i) => `t${i}`);
  }

  /** Generates a nested function with its own temporaries (a macro may run while its caller's are live). */
  inFunction<T>(generate: () => T): { result: T; temps: string[] } {
    const saved = this.temps;
    this.temps = 0;
    try {
      const result = generate();
      return { result, temps: this.tempNames() };
    } finally {
      this.temps = saved;
    }
  }

  /** A fresh number for block-local variable names. */
  id(): number {
    return this.ids++;
  }

  /** A runtime helper, called through a local const. */
  helper(name: string): string {
    this.helpers.add(name);
    return `$${name}`;
  }

  /** An immutable value hoisted out of the render function (FloatBox literals, option Maps). */
  constant(value: unknown, key: unknown = value): string {
    let code = this.constantCodes.get(key);
    if (code === undefined) {
      code = `K${this.constants.length}`;
      this.constants.push(value);
      this.constantCodes.set(key, code);
    }
    return code;
  }

  global(name: string): string {
    this.globals.add(name);
    return `g_${name}`;
  }
}

export const scopeVar = (scope: ForScope | MacroScope, name: string): string => `s${scope.id}_${name}`;
