/**
 * The non-streaming side shared by chat and completions: drain the merged generation into one
 * record per choice plus the usage tally, for the endpoint to shape into its response.
 */
import type { TokenLogprob } from '../../engine/types.js';
import type { GenEvent } from '../generate.js';
import { UsageTally } from './usage.js';

export interface CollectedChoice {
  text: string;
  logprobs: TokenLogprob[];
  /** null when the choice never finished (shown as an abort). */
  finish: string | null;
  matched: string | number | null;
}

/** `perPrompt` choices share one prompt (choice index = prompt index × perPrompt + i), for usage. */
export async function collectChoices(
  events: AsyncIterable<GenEvent>,
  total: number,
  perPrompt: number,
): Promise<{ choices: CollectedChoice[]; usage: UsageTally }> {
  const choices: CollectedChoice[] = Array.from({ length: total }, () => ({ text: '', logprobs: [], finish: null, matched: null }));
  const usage = new UsageTally();
  for await (const ev of events) {
    const c = choices[ev.index];
    if (ev.logprobs) for (const lp of ev.logprobs) c.logprobs.push(lp);
    if (ev.kind === 'delta') {
      c.text += ev.text;
    } else {
      c.finish = ev.finishReason;
      c.matched = ev.matchedStop;
      usage.add(Math.floor(ev.index / perPrompt), ev.promptTokens, ev.completionTokens, ev.cachedTokens);
    }
  }
  return { choices, usage };
}
