/**
 * The Responses `response` object (request-pipeline §3.4): the request fields it echoes, the
 * output items built from one choice, its status and usage. Shared by the JSON answer and the
 * stream's `response.created` / `response.completed` events.
 */
import type { CollectedChoice } from '../../pipeline/collect.js';
import type { FinishKind } from '../../pipeline/events.js';
import type { ResponseEcho } from './request.js';
import type { ToolOriginMap } from './tools.js';

export interface ResponseMeta {
  /** `resp_<uuidv7>`. */
  responseId: string;
  /** The pipeline's request id; output item ids derive from it. */
  chatId: string;
  created: number;
  model: string;
  echo: ResponseEcho;
  /** Turns the model's (flattened) tool names back into the client's tools. */
  origins: ToolOriginMap;
  /** The model tokenizer's count of a text (`reasoning_tokens`); absent = 0. */
  countTokens?: (text: string) => number;
  /** The stored-state fields the object echoes (store-turn.ts); absent = not stored. */
  state?: { store: boolean; previousResponseId: string | null; conversationId: string | null };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';
export type MessageStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * Output item ids in OpenAI's style (`rs_…`, `msg_…`) from the response id's 32 hex digits: short
 * enough for the history tables' VARCHAR(64) ids (postgres-schema.ts), unique per response, so a
 * later request can name them in an `item_reference`.
 */
const itemTail = (meta: ResponseMeta) => meta.responseId.replace(/^resp_/, '');
export const reasoningItemId = (meta: ResponseMeta) => `rs_${itemTail(meta)}`;
export const messageItemId = (meta: ResponseMeta) => `msg_${itemTail(meta)}`;
/** A function_call item's own id; `call_id` is the tool-call id the model's next turn refers to. */
export const functionCallItemId = (callId: string) => `fc_${callId.replace(/^call_/, '')}`;

/**
 * SMG's statuses: tool calls leave the response `in_progress` (the caller must answer them). A
 * length stop is `incomplete` with reason `max_output_tokens`, as OpenAI's API reference gives it
 * (the response object's `status` / `incomplete_details`, and the `response.incomplete` event).
 */
export function responseStatus(finish: FinishKind | null): ResponseStatus {
  if (finish === 'tool_calls') return 'in_progress';
  if (finish === 'length') return 'incomplete';
  return 'completed';
}

/** A finished message item's status: cut off by the token limit, or complete. */
export const finishedMessageStatus = (finish: FinishKind | null): MessageStatus => (finish === 'length' ? 'incomplete' : 'completed');

/**
 * `reasoning` is the reasoning text: its tokens (re-encoded with the model's tokenizer; the
 * think markers themselves are not counted), capped at the output tokens, are `reasoning_tokens`.
 */
export function usageOf(meta: ResponseMeta, prompt: number, completion: number, cached: number, reasoning: string): ResponseUsage {
  const reasoningTokens = reasoning.length > 0 && meta.countTokens ? Math.min(meta.countTokens(reasoning), completion) : 0;
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: completion,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: prompt + completion,
  };
}

/**
 * The reasoning item: the text as `reasoning_text` content, or, when the request asked for
 * `reasoning.summary`, as its one `summary_text` part (there is no separate summarizer: the
 * reasoning is its own summary), which is where OpenAI's clients (the AI SDK's `reasoningText`,
 * Codex, LangChain) read reasoning from.
 */
export function reasoningItem(meta: ResponseMeta, text: string): Record<string, unknown> {
  if (meta.echo.reasoningSummary !== null) return { id: reasoningItemId(meta), type: 'reasoning', summary: [summaryPart(text)], content: [] };
  return { id: reasoningItemId(meta), type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }] };
}

export const summaryPart = (text: string) => ({ type: 'summary_text', text });

export function messageItem(meta: ResponseMeta, text: string, status: MessageStatus): Record<string, unknown> {
  const content = status === 'in_progress' ? [] : [outputTextPart(text)];
  return { id: messageItemId(meta), type: 'message', status, role: 'assistant', content };
}

export function outputTextPart(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [] };
}

/**
 * The output item of one tool call, in the client's terms: a `function_call` (with `namespace` for
 * a namespace member) or a `custom_tool_call` whose `input` is the call's `input` argument.
 */
export function functionCallItem(meta: ResponseMeta, callId: string, flatName: string, args: string): Record<string, unknown> {
  const origin = meta.origins.origin(flatName);
  const ns = origin.namespace === undefined ? {} : { namespace: origin.namespace };
  if (origin.custom) {
    return { id: functionCallItemId(callId), type: 'custom_tool_call', status: 'in_progress', call_id: callId, name: origin.name, ...ns, input: customInput(args) };
  }
  return { id: functionCallItemId(callId), type: 'function_call', status: 'in_progress', call_id: callId, name: origin.name, ...ns, arguments: args };
}

/** A custom tool call's text: its `input` argument, or the arguments as written when they are no such object. */
export function customInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (v !== null && typeof v === 'object' && typeof (v as { input?: unknown }).input === 'string') return (v as { input: string }).input;
  } catch {
    // not JSON (a cut-off call): the text as the model wrote it
  }
  return args;
}

/** Output items in SMG's order: reasoning, the message (only with non-whitespace text), function calls. */
export function outputItems(meta: ResponseMeta, c: CollectedChoice): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (c.reasoning) items.push(reasoningItem(meta, c.reasoning));
  if (c.text.trim().length > 0) items.push(messageItem(meta, c.text, finishedMessageStatus(c.finish)));
  for (const t of c.toolCalls) items.push(functionCallItem(meta, t.id, t.name, t.arguments));
  return items;
}

export function responseObject(
  meta: ResponseMeta,
  status: ResponseStatus,
  output: Record<string, unknown>[],
  usage: ResponseUsage | null,
  error: { code: string; message: string } | null = null,
): Record<string, unknown> {
  const e = meta.echo;
  return {
    id: meta.responseId,
    object: 'response',
    created_at: meta.created,
    status,
    error,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: e.instructions,
    max_output_tokens: e.maxOutputTokens,
    model: meta.model,
    output,
    parallel_tool_calls: e.parallelToolCalls,
    previous_response_id: meta.state?.previousResponseId ?? null,
    ...(meta.state?.conversationId ? { conversation: { id: meta.state.conversationId } } : {}),
    reasoning: { effort: e.reasoningEffort, summary: e.reasoningSummary },
    store: meta.state?.store ?? false,
    temperature: e.temperature,
    text: { format: e.textFormat },
    tool_choice: e.toolChoice,
    tools: e.tools,
    top_p: e.topP,
    truncation: 'disabled',
    usage,
    user: e.user,
    metadata: e.metadata,
  };
}
