/**
 * What one generation produces, per choice and in order: the protocol front-ends encode these as
 * their JSON or SSE. Text has already been stop-decoded and parsed (reasoning, tool calls), so an
 * encoder only formats.
 */
import type { TokenLogprob } from '../engine/types.js';

/** How a choice ended. `tool_calls` = it stopped normally after making tool calls. */
export type FinishKind = 'stop' | 'length' | 'abort' | 'tool_calls';

export type GenEvent =
  /** The ids of one engine step (only when the front-end asks for them: `/generate`). */
  | { kind: 'tokens'; index: number; ids: readonly number[] }
  /** Message content; `logprobs` are the tokens it came from (null when not requested). */
  | { kind: 'text'; index: number; text: string; logprobs: TokenLogprob[] | null }
  | { kind: 'reasoning'; index: number; text: string }
  /** A tool call begins; `tool` is its 0-based index within the choice. */
  | { kind: 'tool_start'; index: number; tool: number; id: string; name: string }
  /** More of call `tool`'s arguments (JSON text). */
  | { kind: 'tool_args'; index: number; tool: number; text: string }
  | {
      kind: 'end';
      index: number;
      finishReason: FinishKind;
      matchedStop: string | number | null;
      promptTokens: number;
      completionTokens: number;
      cachedTokens: number;
      /** Logprobs of tokens that reached no `text` event (held to the end, or parsed away). */
      logprobs: TokenLogprob[] | null;
    };

export type EndEvent = Extract<GenEvent, { kind: 'end' }>;

export interface EventSink {
  push(ev: GenEvent): void;
}

/** Where a generation's events go: every choice's events, then `end` once, or `fail` once. */
export interface GenerationSink extends EventSink {
  end(): void;
  fail(err: unknown): void;
}
