import { invalid } from '../../pipeline/errors.js';
import type { ChatGenerationRequest as ChatRequest, ChatMessage } from '../../pipeline/request.js';
import { type Body, asBody, optBool, optNumber, optObject, optString } from './fields.js';
import { parseSamplingRequest } from './sampling-request.js';
import { parseToolSelection } from './tool-choice.js';

/** Parse, normalize and validate a /v1/chat/completions body (request-pipeline §3.1.1–§3.1.3). */
export function parseChatRequest(raw: unknown): ChatRequest {
  const body = asBody(raw);
  // Absent or empty: the only served model (vLLM's behaviour), resolved by the pipeline.
  const model = optString(body, 'model') ?? '';
  const messages = parseMessages(body);
  const sampling = parseSamplingRequest(body, { maxTokenKeys: ['max_completion_tokens', 'max_tokens'], maxN: 10 });

  const logprobs = optBool(body, 'logprobs') ?? false;
  const topLogprobs = optNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true });
  if (topLogprobs !== undefined && !logprobs) {
    throw invalid('top_logprobs is only allowed when logprobs is enabled');
  }
  if (optBool(body, 'return_audio') === true) {
    throw invalid("'return_audio' must be false because the gRPC backend only supports text output");
  }
  const modalities = body.modalities;
  if (Array.isArray(modalities)) {
    for (const m of modalities) {
      if (m !== 'text') throw invalid(`unsupported output modality '${String(m)}'; the gRPC backend only supports text output`);
    }
  }

  const { tools, toolChoice, toolSelection } = parseTools(body);
  return {
    ...sampling,
    model,
    messages,
    tools,
    toolChoice,
    toolSelection,
    logprobs,
    topLogprobs,
    chatTemplateKwargs: optObject(body, 'chat_template_kwargs') ?? {},
    reasoningEffort: parseReasoningEffort(body),
    responseFormat: body.response_format ?? undefined,
    continueFinalMessage: optBool(body, 'continue_final_message') ?? false,
    addGenerationPrompt: optBool(body, 'add_generation_prompt') ?? true,
    thinking: null,
    separateReasoning: optBool(body, 'separate_reasoning') ?? true,
    streamReasoning: optBool(body, 'stream_reasoning') ?? true,
  };
}

function parseReasoningEffort(body: Body): string | undefined {
  const v = body.reasoning_effort;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') throw invalid('reasoning_effort: must be a string');
  return v;
}

function parseMessages(body: Body): ChatMessage[] {
  const raw = body.messages;
  if (!Array.isArray(raw)) throw invalid('messages: field is required and must be an array');
  if (raw.length === 0) throw invalid('messages: Validation error: messages cannot be empty');
  return raw.map((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw invalid(`messages[${i}]: must be an object`);
    const msg = m as Body;
    if (typeof msg.role !== 'string') throw invalid(`messages[${i}].role: must be a string`);
    if (msg.role === 'user') {
      if (msg.content === '' ) throw invalid('message content cannot be empty');
      if (Array.isArray(msg.content) && msg.content.length === 0) throw invalid('message content parts cannot be empty');
      if (msg.content === undefined || msg.content === null) throw invalid('message content cannot be empty');
    }
    return msg as ChatMessage;
  });
}

/** `functions`/`function_call` are folded into `tools`/`tool_choice`, then tool_choice is checked. */
function parseTools(body: Body): Pick<ChatRequest, 'tools' | 'toolChoice' | 'toolSelection'> {
  let tools = body.tools as unknown;
  let toolChoice = body.tool_choice as unknown;
  if (tools === undefined || tools === null) {
    if (Array.isArray(body.functions)) tools = body.functions.map((f) => ({ type: 'function', function: f }));
  }
  if ((toolChoice === undefined || toolChoice === null) && body.function_call !== undefined && body.function_call !== null) {
    const fc = body.function_call;
    toolChoice = typeof fc === 'string' ? fc : { type: 'function', function: { name: (fc as Body).name } };
  }
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) throw invalid('tools: must be an array');
  const list = (tools ?? undefined) as Record<string, unknown>[] | undefined;
  if (list?.some((t) => t === null || typeof t !== 'object' || Array.isArray(t))) throw invalid('tools: each tool must be an object');
  if (toolChoice === undefined || toolChoice === null) {
    toolChoice = list ? (list.length === 0 ? 'none' : 'auto') : undefined;
  }
  return { tools: list, toolChoice, toolSelection: parseToolSelection(toolChoice, list) };
}
