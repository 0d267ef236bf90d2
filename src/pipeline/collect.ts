/**
 * The non-streaming side every protocol shares: drain the merged generation into one record per
 * choice (content, reasoning, tool calls, finish) plus the usage tally, for the front-end to shape
 * into its response.
 */
import type { TokenLogprob } from '../engine/types.js';
import type { FinishKind, GenEvent } from './events.js';
import { UsageTally } from './usage.js';

export interface CollectedToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
}

export interface CollectedChoice {
  /** Generated token ids, when the generation emitted them (`tokens` events). */
  ids: number[];
  text: string;
  reasoning: string;
  toolCalls: CollectedToolCall[];
  logprobs: TokenLogprob[];
  /** null when the choice never finished (shown as an abort). */
  finish: FinishKind | null;
  matched: string | number | null;
}

/** `perPrompt` choices share one prompt (choice index = prompt index × perPrompt + i), for usage. */
export async function collectChoices(
  events: AsyncIterable<GenEvent>,
  total: number,
  perPrompt: number,
): Promise<{ choices: CollectedChoice[]; usage: UsageTally }> {
  const choices: CollectedChoice[] = Array.from({ length: total }, () => ({
    ids: [],
    text: '',
    reasoning: '',
    toolCalls: [],
    logprobs: [],
    finish: null,
    matched: null,
  }));
  const usage = new UsageTally();
  for await (const ev of events) {
    const c = choices[ev.index];
    switch (ev.kind) {
      case 'tokens':
        for (const id of ev.ids) c.ids.push(id);
        break;
      case 'text':
        c.text += ev.text;
        if (ev.logprobs) for (const lp of ev.logprobs) c.logprobs.push(lp);
        break;
      case 'reasoning':
        c.reasoning += ev.text;
        break;
      case 'tool_start':
        c.toolCalls[ev.tool] = { id: ev.id, name: ev.name, arguments: '' };
        break;
      case 'tool_args':
        c.toolCalls[ev.tool].arguments += ev.text;
        break;
      case 'end':
        if (ev.logprobs) for (const lp of ev.logprobs) c.logprobs.push(lp);
        c.finish = ev.finishReason;
        c.matched = ev.matchedStop;
        usage.add(Math.floor(ev.index / perPrompt), ev.promptTokens, ev.completionTokens, ev.cachedTokens);
        break;
    }
  }
  return { choices, usage };
}
