/**
 * The non-streaming side every protocol shares: drain the merged generation into one record per
 * choice (content, reasoning, tool calls, finish) plus the usage tally, for the front-end to shape
 * into its response.
 */
import type { TokenLogprob } from '../engine/types.js';
import type { FinishKind, GenEvent, GenerationSink } from './events.js';
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
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export interface Collected {
  choices: CollectedChoice[];
  usage: UsageTally;
}

/**
 * A generation sink that folds events into one record per choice; `result` settles when the
 * generation ends (or fails). `perPrompt` choices share one prompt (choice index = prompt index ×
 * perPrompt + i), for usage.
 */
export class ChoiceCollector implements GenerationSink {
  private readonly choices: CollectedChoice[];
  private readonly usage = new UsageTally();
  private resolve!: (c: Collected) => void;
  private reject!: (err: unknown) => void;
  readonly result: Promise<Collected>;

  constructor(
    total: number,
    private readonly perPrompt: number,
  ) {
    this.choices = Array.from({ length: total }, () => ({ ids: [], text: '', reasoning: '', toolCalls: [], logprobs: [], finish: null, matched: null, promptTokens: 0, completionTokens: 0, cachedTokens: 0 }));
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  push(ev: GenEvent): void {
    const c = this.choices[ev.index];
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
        c.promptTokens = ev.promptTokens;
        c.completionTokens = ev.completionTokens;
        c.cachedTokens = ev.cachedTokens;
        this.usage.add(Math.floor(ev.index / this.perPrompt), ev.promptTokens, ev.completionTokens, ev.cachedTokens);
        break;
    }
  }

  end(): void {
    this.resolve({ choices: this.choices, usage: this.usage });
  }

  fail(err: unknown): void {
    this.reject(err);
  }
}

/** Folds an event stream (tests, replays) the way the collector sink does. */
export async function collectChoices(events: AsyncIterable<GenEvent>, total: number, perPrompt: number): Promise<Collected> {
  const c = new ChoiceCollector(total, perPrompt);
  try {
    for await (const ev of events) c.push(ev);
    c.end();
  } catch (err) {
    c.fail(err);
  }
  return c.result;
}
