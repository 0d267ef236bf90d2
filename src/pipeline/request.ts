/**
 * The protocol-neutral requests the pipeline serves. Each front-end in `src/api/<protocol>/`
 * validates its own body and converts it into one of these; nothing here knows which protocol
 * asked. Messages and tools use the shape chat templates expect (OpenAI chat's, which is also
 * what vLLM and SMG render from).
 */
import type { StructuredConstraint } from '../engine/types.js';
import type { ToolSelection } from './tools/tool-choice.js';

/** The sampling-related fields chat and completions share, validated (request-pipeline §3.1.3). */
export interface SamplingRequest {
  maxTokens: number | undefined;
  /**
   * `maxTokens` is a ceiling, lowered to what the context leaves, instead of a demand that is a
   * 400 when it does not fit (Anthropic Messages: clients send a `max_tokens` sized for 200k-token
   * models). Absent = vLLM's rule (the 400).
   */
  maxTokensCeiling?: boolean;
  minTokens: number;
  temperature: number | undefined;
  topP: number | undefined;
  topK: number | undefined;
  minP: number | undefined;
  presencePenalty: number | undefined;
  frequencyPenalty: number | undefined;
  repetitionPenalty: number | undefined;
  n: number;
  seed: number | undefined;
  stop: string[];
  stopTokenIds: number[];
  ignoreEos: boolean;
  /** Keep the matched stop text in the output (`no_stop_trim` / `include_stop_str_in_output`). */
  keepStop: boolean;
  skipSpecialTokens: boolean;
  logitBias: Map<number, number> | null;
  structured: StructuredConstraint | null;
  stream: boolean;
  includeUsage: boolean;
  /** Client-chosen backend request id (`rid`). */
  rid: string | undefined;
  /**
   * Scheduling priority as vLLM takes it (lower runs earlier; honoured only by an engine started
   * with `--scheduling-policy priority`, ignored by the default FCFS scheduler). 0 when absent.
   */
  priority: number;
}

/** A chat message as the template sees it; extra fields pass through untouched. */
export type ChatMessage = Record<string, unknown> & { role: string };

export interface ChatGenerationRequest extends SamplingRequest {
  model: string;
  messages: ChatMessage[];
  tools: Record<string, unknown>[] | undefined;
  /** tool_choice as sent (after normalization), for the template kwargs. */
  toolChoice: unknown;
  /** tool_choice validated against `tools`; undefined when neither was given. */
  toolSelection: ToolSelection | undefined;
  logprobs: boolean;
  /** Requested ranked candidates per token; undefined when not given. */
  topLogprobs: number | undefined;
  chatTemplateKwargs: Record<string, unknown>;
  /** Template kwarg and thinking switch (§4.3/§4.4); numbers arrive as strings. */
  reasoningEffort: string | undefined;
  /** response_format as sent, for the template kwargs (the constraint itself is in `structured`). */
  responseFormat: unknown;
  continueFinalMessage: boolean;
  addGenerationPrompt: boolean;
  /**
   * An explicit thinking switch from the protocol (Anthropic `thinking.type`): written under the
   * template's thinking key unless `chatTemplateKwargs` sets it; null = the template default.
   */
  thinking: boolean | null;
  /** Split reasoning from content (`separate_reasoning`, default true). */
  separateReasoning: boolean;
  /** Stream reasoning deltas (`stream_reasoning`, default true); when false they are not sent. */
  streamReasoning: boolean;
}

/** One prompt of a completions request: text to tokenize, or token ids given by the client. */
export type PromptInput = { text: string } | { tokenIds: number[] };

export interface CompletionGenerationRequest extends SamplingRequest {
  model: string;
  prompts: PromptInput[];
  echo: boolean;
  suffix: string | undefined;
  /** Ranked candidates per token (legacy `logprobs` integer, 0–5); undefined when not requested. */
  logprobs: number | undefined;
}

