/**
 * POST /v1/responses → the pipeline's chat request (request-pipeline §3.4): the Responses body is
 * rewritten as the chat body SMG builds from it and validated by the chat parser, after the
 * Responses-only fields are checked under their own names. Stored state (previous_response_id,
 * conversation, item_reference) has already been replayed into `input` by store-turn.ts.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { ChatGenerationRequest } from '../../pipeline/request.js';
import { parseChatRequest } from '../openai/chat-request.js';
import { checkJsonSchemaFormat } from '../openai/sampling-request.js';
import { type Body, asBody, optBool, optNumber, optObject, optString } from '../openai/fields.js';
import { inputMessages } from './input-items.js';
import { type ResponsesTools, chatToolChoice, parseResponsesTools } from './tools.js';
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
  /** `reasoning.summary` as asked (auto, concise, detailed): the reasoning then goes out as the summary. */
  reasoningSummary: string | null;
  metadata: Record<string, unknown>;
  user: string | null;
}

export interface ResponsesRequest {
  chat: ChatGenerationRequest;
  echo: ResponseEcho;
  /** The request's tools as the model sees them, and what each call name stands for (tools.ts). */
  tools: ResponsesTools;
}

/**
 * `reasoning.effort` values, as OpenAI's API types them (openai-node 6.49 shared.d.ts
 * `ReasoningEffort`; vLLM takes the openai package's `Reasoning` type for the same field).
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export function parseResponsesRequest(raw: unknown): ResponsesRequest {
  const body = asBody(raw);
  // Booleans as OpenAI types them: "yes" or 1 is a 400, never read as true. The stored state
  // itself (store, previous_response_id, conversation) is store-turn.ts's.
  optBool(body, 'store');
  if (optBool(body, 'background') === true) {
    // Background runs would need a job queue on the history store; SMG dropped them too
    // (grpc/common/responses/handlers.rs: "Background mode is not supported").
    throw new PipelineError(400, 'unsupported_parameter', 'background: true is not supported: responses run in the foreground only', true, 'background');
  }
  // Absent or empty: the only served model (vLLM's behaviour), resolved by the pipeline.
  const model = optString(body, 'model') ?? '';
  const instructions = optString(body, 'instructions');
  const converted = parseResponsesTools(body.tools);
  const messages = inputMessages(body.input, instructions, converted.origins);
  const maxOutputTokens = optNumber(body, 'max_output_tokens', { min: 1, integer: true, message: 'max_output_tokens: must be at least 1' });
  const topLogprobs = optNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true });
  const tools = converted.functions;
  const stream = optBool(body, 'stream') ?? false;
  const textFormat = responseFormat(body);
  const reasoning = optObject(body, 'reasoning');
  const effort = reasoning ? optString(reasoning, 'effort', 'reasoning.effort') : undefined;
  if (effort !== undefined && !(REASONING_EFFORTS as readonly string[]).includes(effort)) {
    throw invalid(`reasoning.effort: must be one of ${REASONING_EFFORTS.join(', ')}, got '${effort}'`, 'reasoning.effort');
  }
  const summary = reasoning ? reasoningSummary(reasoning) : null;
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
    // Once every tool sent was a dropped hosted tool, no choice is left to make.
    tool_choice: tools.length > 0 || converted.dropped.length === 0 ? chatToolChoice(body.tool_choice, converted.origins) : undefined,
    parallel_tool_calls: body.parallel_tool_calls,
    response_format: textFormat.type === 'text' ? undefined : chatResponseFormat(textFormat),
    reasoning_effort: effort,
    stream,
    // Responses streams always end with the usage in response.completed.
    stream_options: stream ? { include_usage: true } : undefined,
    skip_special_tokens: true,
    // vLLM's ResponsesRequest.priority, same meaning as on chat.
    priority: body.priority,
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
      // OpenAI echoes `auto` when tool_choice is absent, tools or not.
      toolChoice: body.tool_choice ?? 'auto',
      tools: converted.echo,
      textFormat,
      reasoningEffort: effort ?? null,
      reasoningSummary: summary,
      metadata,
      user: optString(body, 'user') ?? null,
    },
    tools: converted,
  };
}

const SUMMARY_KINDS = ['auto', 'concise', 'detailed'];

/** `reasoning.summary` (or the deprecated `generate_summary`): auto, concise, detailed, or null. */
function reasoningSummary(reasoning: Body): string | null {
  for (const key of ['summary', 'generate_summary']) {
    const v = reasoning[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !SUMMARY_KINDS.includes(v)) {
      throw invalid(`reasoning.${key}: must be one of ${SUMMARY_KINDS.join(', ')}`, `reasoning.${key}`);
    }
    return v;
  }
  return null;
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
