/**
 * The contract every output parser follows (reasoning, tool calls, Harmony channels). Parsers are
 * text in, items out: they know nothing about HTTP, protocols or engines, so every front-end
 * (OpenAI chat, Anthropic Messages, Responses) and both engines share them unchanged.
 *
 * A parser is created per choice. Streaming feeds it decoded text deltas in order; `finish()` ends
 * the stream and releases anything still held (a partial marker, an unfinished call's arguments).
 * Non-streaming calls `parse()` once on the whole text. For any text and any split of it into
 * deltas, folding the streamed items must give the same result as folding `parse()`'s items
 * (see `foldItems`): that is what the unit tests check.
 */

/** One piece of parsed output, in the order it appeared in the text. */
export type ParsedItem =
  /** Text that stays message content (it may be passed on to the next parser in the chain). */
  | { kind: 'text'; text: string }
  /** Reasoning text (`reasoning_content`, Anthropic `thinking`, a Responses `reasoning` item). */
  | { kind: 'reasoning'; text: string }
  /** A tool call begins: `tool` is its 0-based index within the choice; `name` is a declared tool. */
  | { kind: 'tool_start'; tool: number; name: string }
  /** More of call `tool`'s arguments (a JSON text; all pieces concatenated form valid JSON). */
  | { kind: 'tool_args'; tool: number; text: string };

export interface StreamingParser {
  /** Feed the next decoded delta; returns what it releases (often one `text` item, or nothing). */
  push(delta: string): ParsedItem[];
  /** End of stream: release everything still held. The parser is not used afterwards. */
  finish(): ParsedItem[];
}

/** The folded form of a parser's items: what a non-streaming response shows. */
export interface FoldedOutput {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; arguments: string }>;
}

export function foldItems(items: Iterable<ParsedItem>, into: FoldedOutput = { text: '', reasoning: '', calls: [] }): FoldedOutput {
  for (const it of items) {
    switch (it.kind) {
      case 'text':
        into.text += it.text;
        break;
      case 'reasoning':
        into.reasoning += it.text;
        break;
      case 'tool_start':
        into.calls[it.tool] = { name: it.name, arguments: '' };
        break;
      case 'tool_args':
        into.calls[it.tool].arguments += it.text;
        break;
    }
  }
  return into;
}

/** Parsers buffer at most this much undecided text; beyond it they stop parsing and pass text through. */
export const PARSER_BUFFER_LIMIT = 4 * 1024 * 1024;
