/** What the JSON and SSE forms of a Messages response share (request-pipeline §3.3, §13). */
import type { FinishKind } from '../../pipeline/events.js';

export interface MessagesMeta {
  /** Response id (request-pipeline §2.1). */
  id: string;
  model: string;
  /** The templated prompt's length: `message_start` reports it before any token. */
  promptTokens: number;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

/** Chat tool-call ids become Anthropic's: `call_…` → `toolu_…`; other id styles stay as they are. */
export function toolUseId(id: string): string {
  return id.startsWith('call_') ? `toolu_${id.slice(5)}` : id;
}

/**
 * `tool_use` whenever a tool was called; else `stop_sequence` when a stop string matched (a stop
 * token id, EOS included, is no stop sequence); else `max_tokens` on length; else `end_turn`.
 */
export function stopReason(finish: FinishKind | null, matched: string | number | null, toolCalls: boolean): StopReason {
  if (toolCalls || finish === 'tool_calls') return 'tool_use';
  if (typeof matched === 'string') return 'stop_sequence';
  if (finish === 'length') return 'max_tokens';
  return 'end_turn';
}

/** Anthropic's usage object; prompt caching is not reported by the engines, so its counters are 0. */
export function messagesUsage(inputTokens: number, outputTokens: number): Record<string, number> {
  return { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}
