/**
 * The `# Tools` section listing function tools in the developer message, in the reference
 * renderer's layout (openai/harmony `src/encoding.rs`, `template_tools_section`; expected text in
 * `test-data/test_render_functions_with_parameters.txt` and the format guide's "Defining available
 * tools"):
 *
 *   # Tools\n\n## functions\n\nnamespace functions {\n\n
 *   // description line            (one `//` line per description line)
 *   type NAME = (_: TYPE) => any;\n  (or `() => any;` without parameters)
 *   \n                              (blank line between functions)
 *   } // namespace functions
 */
import { schemaToTypeScript } from './schema-typescript.js';
import type { HarmonyFunctionTool } from './types.js';

/** Rust `str::lines`: split on `\n`, drop one trailing `\r` per line, no empty last line. */
export function rustLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** One function's lines (without the separating blank line). */
function functionLines(tool: HarmonyFunctionTool): string[] {
  const { name, description, parameters } = tool.function;
  // SMG passes a missing description as "" (`unwrap_or_default`), which yields no comment line.
  const lines = rustLines(description ?? '').map((l) => `// ${l}`);
  // The reference writes `() => any` only when parameters are absent; an empty object schema still
  // gets `(_: {\n}) => any` (the jinja template would write `() => any` for it).
  if (parameters === undefined || parameters === null) lines.push(`type ${name} = () => any;\n`);
  else lines.push(`type ${name} = (_: ${schemaToTypeScript(parameters, '')}) => any;\n`);
  return lines;
}

/** The functions that get rendered: function-type tools, first occurrence of each name (SMG dedupes). */
export function functionTools(tools: readonly HarmonyFunctionTool[] | null | undefined): HarmonyFunctionTool[] {
  const seen = new Set<string>();
  const out: HarmonyFunctionTool[] = [];
  for (const tool of tools ?? []) {
    if (tool.type !== undefined && tool.type !== 'function') continue;
    if (seen.has(tool.function.name)) continue;
    seen.add(tool.function.name);
    out.push(tool);
  }
  return out;
}

/** `# Tools` with the `functions` namespace; call only with at least one tool. */
export function functionsToolsSection(tools: readonly HarmonyFunctionTool[]): string {
  const namespace = ['## functions\n', 'namespace functions {\n'];
  for (const tool of tools) namespace.push(...functionLines(tool));
  namespace.push('} // namespace functions');
  return ['# Tools', namespace.join('\n')].join('\n\n');
}
