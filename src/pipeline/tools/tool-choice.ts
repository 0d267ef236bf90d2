/**
 * What a validated `tool_choice` means for generation (request-pipeline §4.3, §7.3, §10.2): the
 * tool subset the template and the constraint see, and the forced-call JSON-schema constraint.
 * No structural-tag tool parsers are configured in this project, so a forced call is always
 * constrained by JSON schema. Each protocol front-end validates its own tool_choice wording into
 * a `ToolSelection`.
 */
import type { StructuredConstraint } from '../../engine/types.js';
import { PipelineError } from '../errors.js';

export type Json = Record<string, unknown>;

/** What `tool_choice` asks for, once validated. */
export type ToolSelection =
  | { mode: 'none' | 'auto' | 'required' }
  | { mode: 'function'; name: string }
  | { mode: 'allowed'; required: boolean; names: string[] };

/**
 * How the output of a forced call is read back (§10.4): `function` → the text is that function's
 * arguments; `array` → the text is `[{name, parameters}, …]`.
 */
export type ToolCallShape = { kind: 'function'; name: string } | { kind: 'array' };

export interface ToolConstraint {
  constraint: StructuredConstraint;
  shape: ToolCallShape;
}

export const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export function functionOf(tool: Json): Json | undefined {
  return isObj(tool.function) ? tool.function : undefined;
}

/** Name of a function tool; other tool types have none as far as chat is concerned. */
export function functionName(tool: Json): string | undefined {
  if (tool.type !== undefined && tool.type !== 'function') return undefined;
  const name = functionOf(tool)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The tools the template and the constraint see (§10.2). */
export function filterTools(tools: Json[], sel: ToolSelection | undefined): Json[] {
  if (sel?.mode === 'function') return tools.filter((t) => functionName(t) === sel.name);
  if (sel?.mode === 'allowed') {
    const allowed = new Set(sel.names);
    return tools.filter((t) => {
      const n = functionName(t);
      return n !== undefined && allowed.has(n);
    });
  }
  return tools;
}

function parametersOf(tool: Json): unknown {
  return functionOf(tool)?.parameters ?? {};
}

/**
 * The `tools` template variable (§4.3): each tool as `{type: "function", function}` with the
 * function object as sent; ChatTemplate.normalizeTools dumps it as vLLM does.
 */
export function templateTools(tools: Json[]): Json[] {
  // The function object as sent: ChatTemplate dumps it as vLLM does (None for an absent
  // description or parameters; python-json.ts keeps the schema's numbers by object identity).
  return tools.map((t) => ({ ...t, type: 'function', function: functionOf(t) ?? {} }));
}

/**
 * The forced-call constraint (§10.2), or null when the model may answer freely. `tools` is the
 * filtered list. Throws the 400 `invalid_tool_configuration` for conflicting `$defs`.
 */
export function buildToolConstraint(tools: Json[], sel: ToolSelection | undefined): ToolConstraint | null {
  if (!sel || tools.length === 0) return null;
  if (sel.mode === 'function') {
    const tool = tools.find((t) => functionName(t) === sel.name);
    if (!tool) return null;
    const params = parametersOf(tool);
    // A non-object `parameters` is sent as its JSON text; the engine then rejects it itself.
    const schema = isObj(params) ? params : JSON.stringify(params);
    return { constraint: { kind: 'json_schema', schema }, shape: { kind: 'function', name: sel.name } };
  }
  const forced = sel.mode === 'required' || (sel.mode === 'allowed' && sel.required);
  if (!forced) return null;
  return { constraint: { kind: 'json_schema', schema: requiredArraySchema(tools) }, shape: { kind: 'array' } };
}

/** `[{name, parameters}, …]` with at least one call, each matching one tool (§10.2). */
export function requiredArraySchema(tools: Json[]): Json {
  const anyOf = tools.map((t) => ({
    properties: {
      name: { type: 'string', enum: [functionName(t) ?? functionOf(t)?.name] },
      parameters: parametersOf(t),
    },
    required: ['name', 'parameters'],
  }));
  const schema: Json = { type: 'array', minItems: 1, items: { type: 'object', anyOf } };
  // `$ref`s inside a tool's parameters resolve against the document root, so every tool's `$defs`
  // must also live at the top of the combined schema.
  const defs: Json = {};
  for (const t of tools) {
    const params = parametersOf(t);
    const own = isObj(params) && isObj(params.$defs) ? params.$defs : undefined;
    if (!own) continue;
    for (const [name, def] of Object.entries(own)) {
      if (Object.hasOwn(defs, name) && !jsonEqual(defs[name], def)) {
        throw new PipelineError(
          400,
          'invalid_tool_configuration',
          `Invalid tool configuration: Tool definition '${name}' has multiple conflicting schemas`,
        );
      }
      defs[name] = def;
    }
  }
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

/** Structural JSON equality; object key order does not matter (as with serde_json values). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * Chat's gateway-side skip_special_tokens (§7.3). Reasoning parsers that read special tokens need
 * them; tool parsers key on special trigger tokens, so they are kept visible while tools may be
 * called — except under a JSON-schema constraint, where the output is plain JSON.
 */
export function chatSkipSpecialTokens(opts: {
  requested: boolean;
  hasTools: boolean;
  selection: ToolSelection | undefined;
  jsonToolConstraint: boolean;
  /** The reasoning parser that runs reads special tokens (inkling, kimi_k3). */
  reasoningNeedsSpecialTokens?: boolean;
}): boolean {
  if (opts.reasoningNeedsSpecialTokens) return false;
  if (opts.jsonToolConstraint) return opts.requested;
  if (opts.hasTools && opts.selection !== undefined && opts.selection.mode !== 'none') return false;
  return opts.requested;
}
