/**
 * POST /v1/responses → the pipeline's chat request (request-pipeline §3.4): the Responses body is
 * rewritten as the chat body SMG builds from it and validated by the chat parser, after the
 * Responses-only fields are checked under their own names. Stored state (previous_response_id,
 * conversation, store, background) does not exist here, so asking for it is a 400 that says so.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { ChatGenerationRequest } from '../../pipeline/request.js';
import { parseChatRequest } from '../openai/chat-request.js';
import { checkJsonSchemaFormat } from '../openai/sampling-request.js';
import { ToolNames, checkOptBool, checkOptString, checkToolName, checkToolSchema } from '../tool-definition.js';
import { type Body, asBody, optBool, optNumber, optObject, optString } from '../openai/fields.js';
import { inputMessages } from './input-items.js';
import { checkMetadata } from './metadata.js';

/** Request fields a Responses object echoes back. */
export interface ResponseEcho {
  instructions: string | null;
  maxOutputTokens: number | null;
  parallelToolCalls: boolean;
  temperature: number;
  topP: number;
  toolChoice: unknown;
  tools: unknown[];
  textFormat: Record<string, unknown>;
  reasoningEffort: string | null;
  metadata: Record<string, unknown>;
  user: string | null;
}

export interface ResponsesRequest {
  chat: ChatGenerationRequest;
  echo: ResponseEcho;
}

/** Fields that need server-side state this gateway does not keep. */
const STATEFUL: Array<[string, (v: unknown) => boolean, string]> = [
  ['previous_response_id', (v) => v !== undefined && v !== null, 'previous_response_id is not supported: this gateway stores no responses; send the whole conversation in `input`'],
  ['conversation', (v) => v !== undefined && v !== null, 'conversation is not supported: this gateway stores no conversations; send the whole conversation in `input`'],
  ['store', (v) => v === true, 'store: true is not supported: this gateway stores no responses; omit `store` or set it to false'],
  ['background', (v) => v === true, 'background: true is not supported: responses run in the foreground only'],
];

export function parseResponsesRequest(raw: unknown): ResponsesRequest {
  const body = asBody(raw);
  for (const [key, present, message] of STATEFUL) {
    if (present(body[key])) throw new PipelineError(400, 'unsupported_parameter', message, true, key);
  }
  // Absent or empty: the only served model (vLLM's behaviour), resolved by the pipeline.
  const model = optString(body, 'model') ?? '';
  const instructions = optString(body, 'instructions');
  const messages = inputMessages(body.input, instructions);
  const maxOutputTokens = optNumber(body, 'max_output_tokens', { min: 1, integer: true, message: 'max_output_tokens: must be at least 1' });
  const topLogprobs = optNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true });
  const tools = functionTools(body.tools);
  const stream = optBool(body, 'stream') ?? false;
  const textFormat = responseFormat(body);
  const reasoning = optObject(body, 'reasoning');
  const effort = reasoning ? optString(reasoning, 'effort', 'reasoning.effort') : undefined;
  const metadata = checkMetadata(body.metadata);

  const chatBody: Body = {
    model,
    messages,
    max_completion_tokens: maxOutputTokens,
    temperature: body.temperature,
    top_p: body.top_p,
    // SGLang/vLLM sampling extensions pass through as on chat.
    top_k: body.top_k,
    min_p: body.min_p,
    repetition_penalty: body.repetition_penalty,
    seed: body.seed,
    stop: body.stop,
    logprobs: topLogprobs !== undefined && topLogprobs > 0 ? true : undefined,
    top_logprobs: topLogprobs !== undefined && topLogprobs > 0 ? topLogprobs : undefined,
    tools: tools.length > 0 ? tools.map(({ name, description, parameters, strict }) => ({ type: 'function', function: { name, description, parameters, strict } })) : undefined,
    tool_choice: toolChoice(body.tool_choice),
    parallel_tool_calls: body.parallel_tool_calls,
    response_format: textFormat.type === 'text' ? undefined : chatResponseFormat(textFormat),
    reasoning_effort: effort,
    stream,
    // Responses streams always end with the usage in response.completed.
    stream_options: stream ? { include_usage: true } : undefined,
    skip_special_tokens: true,
  };
  const chat = parseChatRequest(chatBody);
  return {
    chat,
    echo: {
      instructions: instructions ?? null,
      maxOutputTokens: maxOutputTokens ?? null,
      parallelToolCalls: optBool(body, 'parallel_tool_calls') ?? true,
      temperature: chat.temperature ?? 1,
      topP: chat.topP ?? 1,
      toolChoice: body.tool_choice ?? (tools.length > 0 ? 'auto' : 'none'),
      tools: tools.map((t) => ({ type: 'function', ...t })),
      textFormat,
      reasoningEffort: effort ?? null,
      metadata,
      user: optString(body, 'user') ?? null,
    },
  };
}

interface FunctionTool {
  name: string;
  description?: string;
  parameters?: unknown;
  strict?: boolean;
}

/** Responses function tools are flat (`{type, name, parameters}`); other tool types are hosted tools this gateway lacks. */
function functionTools(raw: unknown): FunctionTool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('tools: must be an array', 'tools');
  const names = new ToolNames();
  return raw.map((t, i) => {
    const where = `tools[${i}]`;
    if (t === null || typeof t !== 'object' || Array.isArray(t)) throw invalid(`${where}: must be an object`, where);
    const tool = t as Body;
    if (tool.type !== 'function') {
      throw invalid(`${where}.type: only function tools are supported, got '${String(tool.type)}'`, `${where}.type`);
    }
    const name = checkToolName(tool.name, `${where}.name`);
    checkOptString(tool.description, `${where}.description`);
    checkToolSchema(tool.parameters, `${where}.parameters`, name);
    checkOptBool(tool.strict, `${where}.strict`);
    names.add(name, `${where}.name`);
    const out: FunctionTool = { name };
    if (typeof tool.description === 'string') out.description = tool.description;
    if (tool.parameters !== undefined && tool.parameters !== null) out.parameters = tool.parameters;
    if (typeof tool.strict === 'boolean') out.strict = tool.strict;
    return out;
  });
}

/** Responses' `{type: "function", name}` choice is chat's `{type: "function", function: {name}}`. */
function toolChoice(raw: unknown): unknown {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const c = raw as Body;
    if (c.type === 'function' && typeof c.name === 'string') return { type: 'function', function: { name: c.name } };
  }
  return raw ?? undefined;
}

function responseFormat(body: Body): Record<string, unknown> {
  const text = optObject(body, 'text');
  const format = text ? optObject(text, 'format', 'text.format') : undefined;
  if (!format) return { type: 'text' };
  const type = format.type;
  if (type !== 'text' && type !== 'json_object' && type !== 'json_schema') {
    throw invalid(`text.format.type: must be text, json_object or json_schema, got '${String(type)}'`, 'text.format.type');
  }
  if (type === 'json_schema') checkJsonSchemaFormat(format, { name: 'text.format.name', schema: 'text.format.schema', strict: 'text.format.strict' });
  return format;
}

/** Responses' flat `{type: "json_schema", name, schema, strict}` is chat's nested `json_schema` object. */
function chatResponseFormat(format: Record<string, unknown>): Body {
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict, description } = format;
  return { type: 'json_schema', json_schema: { name, schema, strict, description } };
}
