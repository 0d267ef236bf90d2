/**
 * Static view of jinja2's scopes. A render has a global scope (builtins and the context) and each
 * `for` statement a scope of its own, whose assignments each iteration starts without (jinja2
 * 2.9+: the next iteration reads the outer value again) and its else block does not see; `if` and
 * `set` blocks add none. `set x` writes to the innermost scope; a read walks outward and stops at
 * the first scope where the name has been set so far, which may depend on what ran. So every name
 * a scope may set gets a JS variable there, starting as UNSET, and reads test the candidates
 * innermost first.
 *
 * Macros are scoped lexically, as in jinja2: past its parameters and own assignments a macro
 * body reads the scopes where it was defined (a JS closure over them), never its caller's.
 */
import type { Expression, For, Macro, Statement } from './ast.js';
import { BUILTIN_NAMES } from './globals.js';

export class Unsupported extends Error {}

export interface ForScope {
  readonly id: number;
  readonly node: For;
  /** Names this scope's environment may hold: loop variables and every `set` target in it. */
  readonly assigned: Set<string>;
  readonly loopVars: readonly string[];
  /** Whether a break/continue in the body targets this loop (iteration output is then buffered). */
  readonly hasControl: boolean;
}

export interface MacroScope {
  readonly id: number;
  readonly node: Macro;
  /** Parameters and every `set` target of the body outside its loops. */
  readonly assigned: Set<string>;
  readonly params: readonly string[];
}

export interface ScopeTable {
  /** Names set at the top level (outside every loop). */
  readonly global: Set<string>;
  readonly fors: Map<For, ForScope>;
  readonly macros: Map<Macro, MacroScope>;
}

/** Names with a meaning inside macros (special arguments, call blocks) the compiler leaves out. */
const MACRO_SPECIALS = new Set(['kwargs', 'varargs', 'caller']);

/** Whether the tree under `node` holds an Identifier with one of `names`. */
function mentions(node: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) return node.some((n) => mentions(n, names));
  if (node instanceof Map) return [...node].some(([k, v]) => mentions(k, names) || mentions(v, names));
  if (typeof node !== 'object' || node === null) return false;
  const n = node as { type?: unknown; value?: unknown };
  if (n.type === 'Identifier' && typeof n.value === 'string' && names.has(n.value)) return true;
  return Object.values(node).some((v) => mentions(v, names));
}

function macroParams(node: Macro): string[] {
  return node.args.map((a) => {
    if (a.type === 'Identifier') return checkName(a.value);
    if (a.type === 'KeywordArgumentExpression') return checkName(a.key.value);
    throw new Unsupported('a macro parameter that is not a name');
  });
}

function checkName(name: string): string {
  if (BUILTIN_NAMES.has(name) || name === 'loop') throw new Unsupported(`assignment to the builtin name '${name}'`);
  // Names become parts of JS identifiers in the generated code; the lexer only makes \w+ ones.
  if (!/^\w+$/.test(name)) throw new Unsupported(`the variable name ${JSON.stringify(name)}`);
  return name;
}

/** Names an assignment target declares (namespace attribute targets declare none). */
function targetNames(target: Expression): string[] {
  if (target.type === 'Identifier') return [checkName(target.value)];
  if (target.type === 'TupleLiteral') {
    return target.value.map((t) => {
      if (t.type !== 'Identifier') throw new Unsupported('unpacking into a non-identifier');
      return checkName(t.value);
    });
  }
  if (target.type === 'MemberExpression') return [];
  throw new Unsupported(`assignment to ${target.type}`);
}

/** Whether `body` holds a break/continue aimed at the loop owning it (not at a nested loop). */
function hasLoopControl(body: readonly Statement[]): boolean {
  for (const s of body) {
    switch (s.type) {
      case 'Break':
      case 'Continue':
        return true;
      case 'If':
        if (hasLoopControl(s.body) || hasLoopControl(s.alternate)) return true;
        break;
      case 'Set':
      case 'FilterStatement':
        if (hasLoopControl(s.body)) return true;
        break;
      case 'For':
        // A nested loop's body is its own target; its else block runs outside it.
        if (hasLoopControl(s.defaultBlock)) return true;
        break;
    }
  }
  return false;
}

export function analyzeScopes(body: readonly Statement[]): ScopeTable {
  const table: ScopeTable = { global: new Set(), fors: new Map(), macros: new Map() };
  let nextId = 0;
  let inMacro = false;
  const visit = (statements: readonly Statement[], assigned: Set<string>): void => {
    for (const s of statements) {
      switch (s.type) {
        case 'Set':
          for (const name of targetNames(s.assignee)) assigned.add(name);
          visit(s.body, assigned);
          break;
        case 'If':
          visit(s.body, assigned);
          visit(s.alternate, assigned);
          break;
        case 'FilterStatement':
          visit(s.body, assigned);
          break;
        case 'For': {
          const loopVars = targetNames(s.loopvar);
          const scope: ForScope = {
            id: nextId++,
            node: s,
            assigned: new Set(loopVars),
            loopVars,
            hasControl: hasLoopControl(s.body),
          };
          table.fors.set(s, scope);
          visit(s.body, scope.assigned);
          visit(s.defaultBlock, scope.assigned);
          break;
        }
        case 'Macro': {
          if (inMacro) throw new Unsupported('a macro defined inside a macro');
          if (mentions(s, MACRO_SPECIALS)) throw new Unsupported('a macro using kwargs, varargs or caller');
          assigned.add(checkName(s.name.value));
          const params = macroParams(s);
          const scope: MacroScope = { id: nextId++, node: s, assigned: new Set(params), params };
          table.macros.set(s, scope);
          inMacro = true;
          visit(s.body, scope.assigned);
          inMacro = false;
          break;
        }
        case 'CallStatement':
          throw new Unsupported('CallStatement statements');
      }
    }
  };
  visit(body, table.global);
  return table;
}
