/**
 * Synthetic generation events for front-end tests: what a choice's text turns into under an output
 * plan (the pipeline's ChoiceOutput, no engine), and the SSE payloads an encoder writes for events.
 */
import type { GenEvent, FinishKind } from '../../src/pipeline/events.js';
import { ChoiceOutput } from '../../src/pipeline/output/choice-output.js';
import type { OutputPlan } from '../../src/pipeline/output/output-plan.js';
import type { SseEncoder } from '../../src/api/sse.js';

export const endEvent = (index: number, finishReason: FinishKind, over: Partial<Extract<GenEvent, { kind: 'end' }>> = {}): GenEvent => ({
  kind: 'end',
  index,
  finishReason,
  matchedStop: null,
  promptTokens: 5,
  completionTokens: 3,
  cachedTokens: 0,
  logprobs: null,
  ...over,
});

/** The events of one choice whose visible text arrives as `texts`, then ends with `reason`. */
export function choiceEvents(plan: OutputPlan | null, stream: boolean, texts: string[], reason: FinishKind, index = 0): GenEvent[] {
  const out: GenEvent[] = [];
  const output = new ChoiceOutput(index, plan, stream, { push: (ev) => out.push(ev) });
  for (const t of texts) output.push(t, null);
  out.push(endEvent(index, output.finish(reason)));
  return out;
}

export async function* eventStream(list: GenEvent[]): AsyncGenerator<GenEvent> {
  for (const e of list) yield e;
}

/** The `data:` payloads (and `event:` names, if any) an encoder writes for `events`, then its end. */
export function ssePayloads(enc: SseEncoder, events: GenEvent[], failure?: unknown): string[] {
  let text = '';
  for (const ev of events) text += enc.event(ev);
  text += failure === undefined ? enc.end() : enc.error(failure);
  return parseSse(text).map((f) => f.data);
}

export interface SseFrame {
  event: string | null;
  data: string;
}

export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.split('\n\n')) {
    if (!block) continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    frames.push({ event, data: data.join('\n') });
  }
  return frames;
}
