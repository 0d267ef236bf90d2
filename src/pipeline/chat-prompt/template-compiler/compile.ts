/**
 * Compiles a chat template's parsed tree (`new Template(src).parsed` from @huggingface/jinja) to
 * a plain JS function `(context) => string`, built once per template with `new Function`.
 *
 * It renders with Python jinja2's semantics in transformers' environment (py.ts, filters.ts,
 * methods.ts, tests.ts, access.ts, operators.ts), which is what vLLM renders: the oracle is jinja2
 * itself (test/unit/template-jinja2-differential.test.ts, template-compiler-jinja2.test.ts).
 * @huggingface/jinja only parses. It is also fast: the library's interpreter boxes every value and
 * walks Environment chains on each lookup (~190 µs for Qwen3's one-message render, against a few
 * µs compiled). The few constructs it does not compile are refused here (`render: null` with the
 * reason); ChatTemplate then renders that template with the library's interpreter, whose
 * semantics are the library's (docs/reference/template-differences.md).
 */
import type { Program } from './ast.js';
import { StatementCompiler } from './compile-stmt.js';
import { Emitter } from './emitter.js';
import { RUNTIME, type Runtime } from './runtime.js';
import { Unsupported, analyzeScopes } from './scopes.js';

export type RenderFunction = (context: Record<string, unknown>) => string;

export type CompileOutcome =
  | { readonly render: RenderFunction; readonly source: string; readonly reason?: undefined }
  | { readonly render: null; readonly reason: string };

const IDENTIFIER = /^\w+$/;

function generate(program: Program): { source: string; constants: unknown[] } {
  const table = analyzeScopes(program.body);
  const em = new Emitter();
  const body = new StatementCompiler(em, table).block(program.body, [], 'o');
  for (const name of em.globals) if (!IDENTIFIER.test(name)) throw new Unsupported(`the variable name ${JSON.stringify(name)}`);
  em.helper('checkContext');
  em.helper('hasOwn');
  for (const h of em.helpers) if (!(h in RUNTIME)) throw new Error(`template compiler bug: no runtime helper ${h}`);
  const lines = [
    '"use strict";',
    `const { ${[...em.helpers].map((h) => `${h}: $${h}`).join(', ')} } = R;`,
    'const U = R.UNSET;',
    'const GP = Object.getPrototypeOf, OP = Object.prototype;',
    ...em.constants.map((_, i) => `const K${i} = K[${i}];`),
    'return function render(ctx) {',
    '$checkContext(ctx);',
    ...[...em.globals].map((n) => `let g_${n} = $hasOwn(ctx, ${JSON.stringify(n)}) ? ctx[${JSON.stringify(n)}] : undefined;`),
    em.tempNames().length > 0 ? `let ${em.tempNames().join(', ')};` : '',
    "let o = '';",
    body,
    'return o;',
    '};',
  ];
  return { source: lines.join('\n'), constants: em.constants };
}

export function compileTemplate(parsed: unknown): CompileOutcome {
  const program = parsed as Program;
  if (program?.type !== 'Program') return { render: null, reason: 'unsupported: not a parsed Program' };
  try {
    const generated = generate(program);
    const factory = new Function('R', 'K', generated.source) as (r: Runtime, k: unknown[]) => RenderFunction;
    return { render: factory(RUNTIME, generated.constants), source: generated.source };
  } catch (err) {
    if (err instanceof Unsupported) return { render: null, reason: `unsupported: ${err.message}` };
    // A compiler bug must not cost the template: the interpreter still renders it.
    return { render: null, reason: `internal: ${(err as Error).message}` };
  }
}
