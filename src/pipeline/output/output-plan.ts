/**
 * How a choice's visible text becomes events: passed through as content, or read by parsers
 * (reasoning, tool calls, a forced tool call's JSON, Harmony channels). Built once per request by
 * the prepare step; each choice gets its own parser instances.
 */
import type { ParsedItem, StreamingParser } from '../parsers/types.js';

/** Tool-call id for the `index`-th call of one choice (request-pipeline §11.5). */
export type ToolCallIdFn = (name: string, index: number) => string;

/** A choice's parser; `matchedStop` is set once it matched a stop string itself (Harmony's final channel). */
export type ChoiceParser = StreamingParser & { readonly matchedStop?: string | null };

export interface OutputPlan {
  /** Streaming: a fresh parser chain for one choice. */
  createParser(): ChoiceParser;
  /** Non-streaming: items for a choice's whole text. */
  parse(text: string): ParsedItem[];
  /** Run the streaming parser even for non-streaming requests (its stop strings end generation early). */
  incremental?: boolean;
  toolCallId: ToolCallIdFn;
}

/** Runs `second` over the `text` items of `first` (reasoning first, then tool calls). */
export function chainParsers(first: StreamingParser, second: StreamingParser): StreamingParser {
  const feed = (items: ParsedItem[], out: ParsedItem[]) => {
    for (const it of items) {
      if (it.kind === 'text') for (const x of second.push(it.text)) out.push(x);
      else out.push(it);
    }
  };
  return {
    push(delta) {
      const out: ParsedItem[] = [];
      feed(first.push(delta), out);
      return out;
    },
    finish() {
      const out: ParsedItem[] = [];
      feed(first.finish(), out);
      for (const x of second.finish()) out.push(x);
      return out;
    },
  };
}

/** The non-streaming counterpart of chainParsers: `second` parses the joined text of `first`'s text items. */
export function chainParse(first: (text: string) => ParsedItem[], second: (text: string) => ParsedItem[], text: string): ParsedItem[] {
  const out: ParsedItem[] = [];
  let rest = '';
  for (const it of first(text)) {
    if (it.kind === 'text') rest += it.text;
    else out.push(it);
  }
  if (rest) for (const x of second(rest)) out.push(x);
  return out;
}
