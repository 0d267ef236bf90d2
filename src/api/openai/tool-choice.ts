/**
 * Chat's `tool_choice` validation against `tools` (request-pipeline §3.1.3), with the exact texts
 * SMG's chat endpoint answers; the result is the pipeline's `ToolSelection`.
 */
import { invalid } from '../../pipeline/errors.js';
import { type Json, type ToolSelection, functionName, functionOf, isObj } from '../../pipeline/tools/tool-choice.js';

/**
 * Validates `toolChoice` (already defaulted by the caller) against `tools`. The `allowed_tools`
 * form is SMG's flat `{type, mode, tools}`; OpenAI's nested `{type, allowed_tools: {mode, tools}}`
 * is read the same way so either client style works.
 */
export function parseToolSelection(toolChoice: unknown, tools: Json[] | undefined): ToolSelection | undefined {
  if (toolChoice === undefined) return undefined;
  const hasTools = tools !== undefined && tools.length > 0;
  if (toolChoice !== 'none' && !hasTools) {
    throw invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  }
  if (toolChoice === 'none' || toolChoice === 'auto' || toolChoice === 'required') return { mode: toolChoice };
  if (!isObj(toolChoice)) throw invalid(`Invalid value for 'tool_choice': unsupported value ${JSON.stringify(toolChoice)}.`);
  const known = new Set((tools ?? []).map(functionName).filter((n): n is string => n !== undefined));

  if (toolChoice.type === 'allowed_tools') {
    const spec = isObj(toolChoice.allowed_tools) ? toolChoice.allowed_tools : toolChoice;
    const mode = spec.mode;
    if (mode !== 'auto' && mode !== 'required') {
      throw invalid(`Invalid value for 'tool_choice.mode': must be 'auto' or 'required', got '${String(mode)}'.`);
    }
    if (!Array.isArray(spec.tools)) throw invalid("Invalid value for 'tool_choice.tools': must be an array.");
    const names: string[] = [];
    for (const ref of spec.tools as unknown[]) {
      if (!isObj(ref)) throw invalid("Invalid value for 'tool_choice.tools': each entry must be an object.");
      if (ref.type !== 'function') {
        throw invalid(
          `Invalid value for 'tool_choice.tools': Chat Completion API only supports function tools, got '${toolRefId(ref)}'.`,
        );
      }
      // Responses-style `{type, name}`; the chat-style nested `function.name` is accepted too.
      const name = typeof ref.name === 'string' ? ref.name : functionOf(ref)?.name;
      if (typeof name !== 'string') throw invalid("Invalid value for 'tool_choice.tools': function tool needs a 'name'.");
      if (!known.has(name)) throw invalid(`Invalid value for 'tool_choice.tools': tool '${name}' not found in 'tools'.`);
      names.push(name);
    }
    return { mode: 'allowed', required: mode === 'required', names };
  }

  const name = functionOf(toolChoice)?.name;
  if (typeof name !== 'string') throw invalid("Invalid value for 'tool_choice': a function tool choice needs 'function.name'.");
  if (!known.has(name)) throw invalid(`Invalid value for 'tool_choice': function '${name}' not found in 'tools'.`);
  return { mode: 'function', name };
}

/** SMG's `ToolReference::identifier()` wording for tool references chat cannot serve. */
function toolRefId(ref: Json): string {
  const type = String(ref.type);
  if (type === 'mcp') {
    const label = String(ref.server_label ?? '');
    return typeof ref.name === 'string' ? `mcp:${label}:${ref.name}` : `mcp:${label}`;
  }
  return type;
}
