/**
 * `minimax_m2`: MiniMax-M2 / M2.1 tool calls, Anthropic-style invokes inside one wrapper:
 *
 *   <minimax:tool_call>
 *   <invoke name="NAME">
 *   <parameter name="K">V</parameter>
 *   </invoke>
 *   <invoke name="…">…</invoke>
 *   </minimax:tool_call>
 *
 * Sources: https://huggingface.co/MiniMaxAI/MiniMax-M2/blob/main/chat_template.jinja (its
 * `<minimax:tool_call>` / `</minimax:tool_call>` tokens; the rest of the template was not
 * readable here) and docs/tool_calling_guide.md in the same repository; reference parsers
 * smg-project/smg crates/tool_parser/src/parsers/minimax_m2.rs (the layout above) and vLLM
 * vllm/tool_parsers/minimax_m2_tool_parser.py. Several invokes in one wrapper are several calls
 * (as SMG parses them); several wrappers are fine too.
 *
 * Choices where the references differ: values are typed by the tool schema (param-typing.ts) and
 * string values kept verbatim — SMG additionally decodes XML entities (`&lt;` …) and vLLM strips
 * whitespace and one leading/trailing newline; neither is done here (not verified: whether the
 * template escapes values; nothing in the references says it does). `name='X'` (single quotes) is accepted as vLLM's streaming path does. An invoke naming an
 * undeclared tool stays text, `<invoke …>` through `</invoke>`.
 */
import type { ToolSchema } from './types.js';
import { readNameAttribute } from './tag-headers.js';
import { TaggedCallParser, type TaggedCallFormat } from './tagged-calls.js';
import { toolParserSpec } from './stream-base.js';

export const MINIMAX_M2_TOOL_CALL: TaggedCallFormat = {
  section: { open: ['<minimax:tool_call>'], close: ['</minimax:tool_call>'] },
  callOpen: '<invoke',
  readHeader: readNameAttribute,
  callClose: ['</invoke>'],
  passthroughEnd: ['</invoke>'],
  paramOpen: '<parameter',
  readParam: (buf, final) => {
    const r = readNameAttribute(buf, final);
    return typeof r === 'string' ? r : { key: r.name, length: r.length };
  },
  valueClose: '</parameter>',
  typing: (key, _attr, schema) => schema.typing(key),
};

export const minimaxM2ToolParser = toolParserSpec('minimax_m2', (tools: readonly ToolSchema[]) => new TaggedCallParser(MINIMAX_M2_TOOL_CALL, tools));
