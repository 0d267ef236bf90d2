/**
 * The two explicit-only parsers (`--reasoning-parser base|passthrough`).
 *
 * - base: SMG's BaseReasoningParser with its default config (`<think>` / `</think>`, not in
 *   reasoning until the start tag).
 * - passthrough: no separation at all; every character is content, markers included
 *   (SMG crates/reasoning_parser/src/parsers/passthrough.rs). Arming options are ignored.
 */
import type { ParsedItem, StreamingParser } from '../../types.js';
import type { ReasoningParserSpec } from '../types.js';
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const base = thinkBlockSpec('base', THINK_TAGS, false);

class PassthroughParser implements StreamingParser {
  push(delta: string): ParsedItem[] {
    return delta.length === 0 ? [] : [{ kind: 'text', text: delta }];
  }
  finish(): ParsedItem[] {
    return [];
  }
}

export const passthrough: ReasoningParserSpec = {
  name: 'passthrough',
  startsInReasoning: false,
  needsSpecialTokens: false,
  create: () => new PassthroughParser(),
  parse: (text) => (text.length === 0 ? [] : [{ kind: 'text', text }]),
};
