/**
 * A `/v1/messages` body → the pipeline's chat request (request-pipeline §3.3). Template input is
 * `add_generation_prompt`, tools and the thinking switch only: Anthropic requests carry no
 * `chat_template_kwargs`, and (as in SMG) no `tool_choice` kwarg reaches the template.
 *
 * Accepted but not acted on: `metadata`, `service_tier`, `container`, `mcp_servers` (only checked
 * against `mcp_toolset` tools), `cache_control` (anywhere), `thinking.budget_tokens`/`display`,
 * `tool_choice.disable_parallel_tool_use`, `output_config`, `context_management`, `speed`,
 * `inference_geo` and any other field this endpoint does not know (SMG keeps them as `other`).
 */
import { invalid } from '../../pipeline/errors.js';
import type { ChatGenerationRequest } from '../../pipeline/request.js';
import { isObj } from '../../pipeline/tools/tool-choice.js';
import { type Body, asBody, optBool, optNumber, optObject, optString } from '../openai/fields.js';
import { parsePriority } from '../openai/sampling-request.js';
import { convertMessages } from './messages.js';
import { parseTools } from './tools.js';

export interface MessagesParseOptions {
  /** count_tokens: the same body without `max_tokens` and sampling (nothing is generated). */
  countOnly?: boolean;
}

export function parseMessagesRequest(raw: unknown, opts: MessagesParseOptions = {}): ChatGenerationRequest {
  const body = asBody(raw);
  const model = optString(body, 'model');
  if (!model) throw invalid('model field is required and cannot be empty');
  const messages = convertMessages(body);
  const { tools, toolSelection } = parseTools(body);
  const thinking = parseThinking(body);

  let maxTokens: number | undefined;
  if (!opts.countOnly) {
    if (body.max_tokens === undefined || body.max_tokens === null) throw invalid('max_tokens: field is required');
    maxTokens = optNumber(body, 'max_tokens', { min: 1, integer: true, message: 'max_tokens must be greater than 0' });
  }
  // Anthropic's documented ranges: temperature 0–1, top_p 0–1, top_k ≥ 0
  // (https://docs.anthropic.com/en/api/messages). top_p 0 would be a degenerate nucleus that vLLM
  // refuses, and top_k 0 means "no top-k" here, as the engines' own 0/-1 does.
  const temperature = opts.countOnly ? undefined : optNumber(body, 'temperature', { min: 0, max: 1 });
  const topP = opts.countOnly
    ? undefined
    : optNumber(body, 'top_p', { min: 0, max: 1, minExclusive: true, message: 'top_p must be in (0, 1] - greater than 0.0 and at most 1.0' });
  const topK = opts.countOnly ? undefined : optNumber(body, 'top_k', { min: 0, integer: true, message: 'top_k must be a non-negative integer' });
  const rid = optString(body, 'rid');
  if (rid !== undefined && rid.length === 0) throw invalid('rid: must not be empty');
  // Not acted on, but a wrong type is the client's bug to hear about.
  optObject(body, 'metadata');

  return {
    maxTokens,
    // Anthropic's max_tokens is a ceiling ("the maximum number of tokens to generate before
    // stopping"): Claude Code sends 32000 whatever the model; a prompt alone over the context is
    // still a 400 (buildSampling).
    maxTokensCeiling: true,
    minTokens: 0,
    temperature,
    topP,
    topK: topK === 0 ? undefined : topK,
    minP: undefined,
    presencePenalty: undefined,
    frequencyPenalty: undefined,
    repetitionPenalty: undefined,
    n: 1,
    seed: undefined,
    stop: opts.countOnly ? [] : parseStopSequences(body),
    stopTokenIds: [],
    ignoreEos: false,
    keepStop: false,
    skipSpecialTokens: true,
    logitBias: null,
    structured: null,
    stream: opts.countOnly ? false : (optBool(body, 'stream') ?? false),
    includeUsage: false,
    rid,
    // Not an Anthropic field: vLLM's extension, taken here as on chat so one client can set it everywhere.
    priority: parsePriority(body),
    model,
    messages,
    tools,
    toolChoice: undefined,
    toolSelection,
    logprobs: false,
    topLogprobs: undefined,
    chatTemplateKwargs: {},
    reasoningEffort: undefined,
    responseFormat: undefined,
    // A final assistant turn is a prefill the answer continues (Anthropic's documented behaviour).
    continueFinalMessage: endsWithPrefill(messages),
    addGenerationPrompt: true,
    thinking,
    // §3.3 separates reasoning only when thinking is enabled. A template that thinks by default
    // (Qwen3) would then put its `<think>` block in a text block whenever the client says nothing,
    // so here only an explicit `disabled` turns separation off.
    separateReasoning: thinking !== false,
    streamReasoning: true,
  };
}

/** `thinking.type`: enabled/adaptive → on, disabled → off, absent → the template's default. */
function parseThinking(body: Body): boolean | null {
  const t = body.thinking;
  if (t === undefined || t === null) return null;
  if (!isObj(t)) throw invalid('thinking: must be an object');
  if (t.budget_tokens !== undefined && t.budget_tokens !== null && !Number.isInteger(t.budget_tokens)) {
    throw invalid('thinking.budget_tokens: must be an integer');
  }
  switch (t.type) {
    case 'enabled':
    case 'adaptive':
      return true;
    case 'disabled':
      return false;
    default:
      throw invalid(`thinking.type: unsupported value '${String(t.type)}'; expected 'enabled', 'adaptive' or 'disabled'`);
  }
}

function parseStopSequences(body: Body): string[] {
  const v = body.stop_sequences;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw invalid('stop_sequences: must be an array of strings');
  if (v.some((s) => s.length === 0)) throw invalid('stop_sequences: stop sequences cannot be empty');
  return v as string[];
}

/** A last assistant message with text and no tool calls is continued, not closed. */
function endsWithPrefill(messages: ChatGenerationRequest['messages']): boolean {
  const last = messages.at(-1);
  return last?.role === 'assistant' && typeof last.content === 'string' && last.content.length > 0 && last.tool_calls === undefined;
}
