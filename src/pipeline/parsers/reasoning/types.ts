import type { ParsedItem, StreamingParser } from '../types.js';

/**
 * Reasoning parsers split `reasoning` items from `text` items (request-pipeline §11.2). They emit
 * only those two kinds; a later tool parser sees the `text` items.
 */
export interface ReasoningOptions {
  /**
   * The output begins inside reasoning: the parser's own default (e.g. deepseek_r1) or the
   * template armed it ("reasoning started", §4.4). The caller combines both.
   */
  startInReasoning: boolean;
  /** The template's generation prompt already emitted the start marker (think-in-prefill, §4.4). */
  startMarkerConsumed: boolean;
}

export interface ReasoningParserSpec {
  /** Registry name, as `--reasoning-parser` takes it. */
  readonly name: string;
  /** Whether the output starts in reasoning when nothing arms it (the §11.2 table column). */
  readonly startsInReasoning: boolean;
  /** Needs special tokens kept in the decoded text (§7.3: inkling, kimi_k3). */
  readonly needsSpecialTokens: boolean;
  create(opts: ReasoningOptions): StreamingParser;
  parse(text: string, opts: ReasoningOptions): ParsedItem[];
}
