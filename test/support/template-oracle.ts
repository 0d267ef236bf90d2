/**
 * Renders one context through @huggingface/jinja's interpreter (the oracle) and through the
 * compiled template, as comparable outcomes: the output, or the error message.
 */
import { Template } from '@huggingface/jinja';
import { compileTemplate, type RenderFunction } from '../../src/pipeline/template-compiler/compile.js';
import { CompiledFallback } from '../../src/pipeline/template-compiler/values.js';

export type Outcome = { output: string } | { error: string } | { fallback: string };

export function outcome(render: () => string): Outcome {
  try {
    return { output: render() };
  } catch (err) {
    if (err instanceof CompiledFallback) return { fallback: err.reason };
    return { error: (err as Error).message };
  }
}

export interface Pair {
  readonly template: Template;
  readonly compiled: RenderFunction | null;
  readonly reason: string | null;
}

export function pair(source: string): Pair {
  const template = new Template(source);
  const result = compileTemplate(template.parsed);
  return { template, compiled: result.render, reason: result.render ? null : result.reason };
}

/** Both outcomes for one context; the compiled one is null when the template did not compile. */
export function both(p: Pair, context: Record<string, unknown>): { expected: Outcome; actual: Outcome | null } {
  const expected = outcome(() => p.template.render(context));
  const actual = p.compiled ? outcome(() => (p.compiled as RenderFunction)(context)) : null;
  return { expected, actual };
}
