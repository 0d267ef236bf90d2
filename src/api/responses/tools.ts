/**
 * Responses `tools` as agent clients send them → the function tools a chat template renders, and
 * the map that turns the model's calls back into the items the client defined.
 *
 * - `function` tools pass as they are.
 * - `namespace` tools (a named group of function/custom tools; Codex sends its sub-agent tools
 *   this way) are flattened: each member becomes a function named `<namespace>__<name>`, and a
 *   call of that name goes back out as `{name, namespace}` (the `namespace` field of
 *   `function_call` / `custom_tool_call` items, openai-node `ResponseFunctionToolCall`).
 * - `custom` (freeform) tools take free text, not JSON. A tool parser carries JSON arguments, so
 *   each becomes a function with one string parameter `input` (its grammar, when it has one, is
 *   shown in the description, not enforced); the call goes back out as a `custom_tool_call` with
 *   that text as its `input`.
 * - Hosted tools OpenAI runs server-side (web search, file search, code interpreter, image
 *   generation, computer use, MCP, shells…) cannot run here: they are dropped, as /v1/messages
 *   drops Anthropic's server tools, and the request's access-log line names them.
 */
import { invalid } from '../../pipeline/errors.js';
import { ToolNames, checkOptBool, checkOptString, checkToolName, checkToolSchema } from '../tool-definition.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Separator of a flattened namespace member's name (`.` is not allowed in tool names). */
const NS_SEP = '__';

/** What a flattened tool name stands for in the client's own terms. */
export interface ToolOrigin {
  name: string;
  namespace?: string;
  /** A custom (freeform) tool: the call's `input` is the `input` argument's text. */
  custom: boolean;
}

export interface FlatFunctionTool {
  name: string;
  description?: string;
  parameters?: unknown;
  strict?: boolean;
}

export interface ResponsesTools {
  /** Function tools offered to the model. */
  functions: FlatFunctionTool[];
  /** The tools the response object echoes: the client's function, namespace and custom tools. */
  echo: unknown[];
  /** Hosted tool types that were dropped, in order of appearance (each once). */
  dropped: string[];
  /** Model-facing name → the client's tool; only names that differ or are custom are listed. */
  origins: ToolOriginMap;
}

export class ToolOriginMap {
  private readonly byFlat = new Map<string, ToolOrigin>();
  private readonly byOrigin = new Map<string, string>();

  add(flat: string, origin: ToolOrigin): void {
    this.byFlat.set(flat, origin);
    this.byOrigin.set(key(origin.name, origin.namespace), flat);
  }

  /** The client's tool for a name the model called; a plain function when not listed. */
  origin(flat: string): ToolOrigin {
    return this.byFlat.get(flat) ?? { name: flat, custom: false };
  }

  /** The model-facing name of a client tool (history items name tools the client's way). */
  flatName(name: string, namespace: unknown): string {
    return this.byOrigin.get(key(name, typeof namespace === 'string' ? namespace : undefined)) ?? flattened(name, namespace);
  }
}

const key = (name: string, namespace: string | undefined) => (namespace ? `${namespace}\u0000${name}` : name);
const flattened = (name: string, namespace: unknown) => (typeof namespace === 'string' && namespace.length > 0 ? `${namespace}${NS_SEP}${name}` : name);

/**
 * Tool types OpenAI runs itself (https://platform.openai.com/docs/api-reference/responses/create,
 * `tools`), dated variants included. Anything else unknown is a 400 naming the type.
 */
const HOSTED = [
  /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/,
  /^file_search$/,
  /^code_interpreter$/,
  /^image_generation$/,
  /^computer(_use)?(_preview)?$/,
  /^mcp$/,
  /^local_shell$/,
  /^shell$/,
  /^apply_patch$/,
  /^tool_search$/,
];
export const isHostedTool = (type: string): boolean => HOSTED.some((re) => re.test(type));

function functionTool(tool: Json, where: string, names: ToolNames, flat: string): FlatFunctionTool {
  const name = checkToolName(tool.name, `${where}.name`);
  checkOptString(tool.description, `${where}.description`);
  checkToolSchema(tool.parameters, `${where}.parameters`, name);
  checkOptBool(tool.strict, `${where}.strict`);
  names.add(flat, `${where}.name`);
  const out: FlatFunctionTool = { name: flat };
  if (typeof tool.description === 'string') out.description = tool.description;
  if (tool.parameters !== undefined && tool.parameters !== null) out.parameters = tool.parameters;
  if (typeof tool.strict === 'boolean') out.strict = tool.strict;
  return out;
}

function customTool(tool: Json, where: string, names: ToolNames, flat: string): FlatFunctionTool {
  checkToolName(tool.name, `${where}.name`);
  checkOptString(tool.description, `${where}.description`);
  names.add(flat, `${where}.name`);
  const format = isObj(tool.format) ? tool.format : undefined;
  let inputDoc = 'The raw text input of the tool.';
  if (format?.type === 'grammar' && typeof format.definition === 'string') {
    const syntax = typeof format.syntax === 'string' ? format.syntax : 'grammar';
    inputDoc = `The raw text input of the tool; it must follow this ${syntax} grammar:\n${format.definition}`;
  }
  const out: FlatFunctionTool = {
    name: flat,
    parameters: { type: 'object', properties: { input: { type: 'string', description: inputDoc } }, required: ['input'] },
  };
  if (typeof tool.description === 'string') out.description = tool.description;
  return out;
}

export function parseResponsesTools(raw: unknown): ResponsesTools {
  const result: ResponsesTools = { functions: [], echo: [], dropped: [], origins: new ToolOriginMap() };
  if (raw === undefined || raw === null) return result;
  if (!Array.isArray(raw)) throw invalid('tools: must be an array', 'tools');
  const names = new ToolNames();
  const member = (tool: Json, where: string, namespace: string | undefined) => {
    const name = typeof tool.name === 'string' ? tool.name : '';
    const flat = namespace ? `${namespace}${NS_SEP}${name}` : name;
    if (tool.type === 'function') {
      result.functions.push(functionTool(tool, where, names, flat));
      if (namespace) result.origins.add(flat, { name, namespace, custom: false });
    } else if (tool.type === 'custom') {
      result.functions.push(customTool(tool, where, names, flat));
      result.origins.add(flat, { name, namespace, custom: true });
    } else {
      throw invalid(`${where}.type: a namespace holds function and custom tools, got '${String(tool.type)}'`, `${where}.type`);
    }
  };
  raw.forEach((t, i) => {
    const where = `tools[${i}]`;
    if (!isObj(t)) throw invalid(`${where}: must be an object`, where);
    const type = t.type;
    if (typeof type !== 'string') throw invalid(`${where}.type: field is required`, `${where}.type`);
    if (type === 'function' || type === 'custom') {
      member(t, where, undefined);
      result.echo.push(type === 'function' ? { type, ...result.functions.at(-1) } : t);
    } else if (type === 'namespace') {
      const ns = checkToolName(t.name, `${where}.name`);
      if (!Array.isArray(t.tools)) throw invalid(`${where}.tools: must be an array`, `${where}.tools`);
      t.tools.forEach((m, j) => {
        if (!isObj(m)) throw invalid(`${where}.tools[${j}]: must be an object`, `${where}.tools[${j}]`);
        member(m, `${where}.tools[${j}]`, ns);
      });
      result.echo.push(t);
    } else if (isHostedTool(type)) {
      if (!result.dropped.includes(type)) result.dropped.push(type);
    } else {
      throw invalid(`${where}.type: unsupported tool type '${type}'`, `${where}.type`);
    }
  });
  return result;
}

/**
 * Responses' tool_choice → chat's: `{type: "function"|"custom", name, namespace?}` names a
 * flattened function; a hosted tool's choice (`{type: "web_search"}`…) names a dropped tool, so
 * the model chooses freely (`auto`).
 */
export function chatToolChoice(raw: unknown, origins: ToolOriginMap): unknown {
  if (!isObj(raw)) return raw ?? undefined;
  if ((raw.type === 'function' || raw.type === 'custom') && typeof raw.name === 'string') {
    return { type: 'function', function: { name: origins.flatName(raw.name, raw.namespace) } };
  }
  if (typeof raw.type === 'string' && isHostedTool(raw.type)) return 'auto';
  return raw;
}
