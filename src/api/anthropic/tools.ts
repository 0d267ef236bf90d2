/**
 * Anthropic `tools` and `tool_choice` (request-pipeline §3.3) → chat function tools and the
 * pipeline's ToolSelection. Only custom tools (no `type`, or `type: "custom"`) become chat tools;
 * server tools (bash, text editor, web search, MCP toolsets, …) are accepted and ignored, as SMG
 * does, because this gateway runs nothing server-side. The validation texts are SMG's
 * (smg-project/smg crates/protocols/src/messages.rs, `validate_message_request`).
 */
import { invalid } from '../../pipeline/errors.js';
import { type Json, type ToolSelection, isObj } from '../../pipeline/tools/tool-choice.js';
import { ToolNames, checkOptString, checkToolName, checkToolSchema } from '../tool-definition.js';

export interface ConvertedTools {
  /** Chat function tools; undefined when the request has no custom tool. */
  tools: Json[] | undefined;
  toolSelection: ToolSelection | undefined;
}

function readTools(raw: unknown): Json[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('tools: must be an array');
  return raw.map((t, i) => {
    if (!isObj(t)) throw invalid(`tools[${i}]: must be an object`);
    return t;
  });
}

const isCustom = (tool: Json): boolean => tool.type === undefined || tool.type === null || tool.type === 'custom';

function chatTool(tool: Json, i: number, names: ToolNames): Json {
  if (typeof tool.name !== 'string' || tool.name.length === 0) throw invalid(`tools[${i}].name: field is required`);
  const name = checkToolName(tool.name, `tools[${i}].name`);
  if (!isObj(tool.input_schema)) throw invalid(`tools[${i}].input_schema: field is required and must be an object`);
  checkToolSchema(tool.input_schema, `tools[${i}].input_schema`, name);
  checkOptString(tool.description, `tools[${i}].description`);
  names.add(name, `tools[${i}].name`);
  const fn: Json = { name };
  if (typeof tool.description === 'string') fn.description = tool.description;
  fn.parameters = tool.input_schema;
  return { type: 'function', function: fn };
}

/**
 * Whether `tool_choice: {type: "tool", name}` names this tool. As in SMG, every named tool counts
 * (custom or server), and an MCP toolset matches any name its configs leave enabled.
 */
function toolMatches(tool: Json, name: string): boolean {
  if (tool.type === 'mcp_toolset') {
    const configs = isObj(tool.configs) ? tool.configs : {};
    const own = isObj(configs[name]) ? (configs[name] as Json).enabled : undefined;
    const fallback = isObj(tool.default_config) ? tool.default_config.enabled : undefined;
    return (typeof own === 'boolean' ? own : typeof fallback === 'boolean' ? fallback : true) === true;
  }
  return tool.name === name;
}

function hasMcpServers(raw: unknown): boolean {
  return Array.isArray(raw) && raw.length > 0;
}

/** Types of the server tools a (valid) request carries, each once: they are dropped, and the access log says so. */
export function serverToolTypes(body: unknown): string[] {
  if (!isObj(body) || !Array.isArray(body.tools)) return [];
  const types = body.tools.filter((t): t is Json => isObj(t) && !isCustom(t)).map((t) => String(t.type));
  return [...new Set(types)];
}

export function parseTools(body: Json): ConvertedTools {
  const all = readTools(body.tools);
  if (all.some((t) => t.type === 'mcp_toolset') && !hasMcpServers(body.mcp_servers)) {
    throw invalid('mcp_servers is required when mcp_toolset tools are present');
  }
  const selection = parseToolChoice(body.tool_choice, all);
  const names = new ToolNames();
  const custom = all.flatMap((t, i) => (isCustom(t) ? [chatTool(t, i, names)] : []));
  if (custom.length === 0) return { tools: undefined, toolSelection: undefined };
  // No tool_choice with tools is `auto`, as in chat: the tool parser then runs and needs the
  // trigger tokens left in the output (§3.3 skip_special_tokens).
  return { tools: custom, toolSelection: selection ?? { mode: 'auto' } };
}

function parseToolChoice(raw: unknown, tools: Json[]): ToolSelection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObj(raw)) throw invalid('tool_choice: must be an object');
  const type = raw.type;
  if (type !== 'auto' && type !== 'any' && type !== 'tool' && type !== 'none') {
    throw invalid(`tool_choice.type: unsupported value '${String(type)}'; expected 'auto', 'any', 'tool' or 'none'`);
  }
  if (raw.disable_parallel_tool_use !== undefined && raw.disable_parallel_tool_use !== null && typeof raw.disable_parallel_tool_use !== 'boolean') {
    throw invalid('tool_choice.disable_parallel_tool_use: must be a boolean');
  }
  if (type !== 'none' && tools.length === 0) {
    throw invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  }
  switch (type) {
    case 'none':
      return { mode: 'none' };
    case 'auto':
      return { mode: 'auto' };
    case 'any':
      return { mode: 'required' };
    case 'tool': {
      const name = raw.name;
      if (typeof name !== 'string') throw invalid('tool_choice.name: field is required when type is tool');
      if (!tools.some((t) => toolMatches(t, name))) {
        throw invalid(`Invalid value for 'tool_choice': tool '${name}' not found in 'tools'.`);
      }
      return { mode: 'function', name };
    }
  }
}
