/**
 * `step3`: StepFun Step-3 tool calls, steptml invokes inside DeepSeek-style section tokens (the
 * bars are U+FF5C FULLWIDTH VERTICAL LINE, as in the tokenizer):
 *
 *   <｜tool_calls_begin｜>
 *   <｜tool_call_begin｜>
 *   function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="K">V</steptml:parameter>…</steptml:invoke><｜tool_call_end｜>
 *   <｜tool_calls_end｜>
 *
 * Sources: the tools system prompt in https://huggingface.co/stepfun-ai/step3/blob/main/chat_template.json
 * (the syntax above, newlines included); vLLM tests/tool_parsers/test_step3_tool_parser.py, whose
 * fixtures come from the stepfun-ai/step3 tokenizer and omit `function<｜tool_sep｜>`; reference
 * parsers smg-project/smg crates/tool_parser/src/parsers/step3.rs (requires the `function` type)
 * and vLLM vllm/tool_parsers/step3_tool_parser.py. Both spellings are accepted here: the
 * `function<｜tool_sep｜>` prefix is optional, but another call type before `<｜tool_sep｜>` is not
 * a function call and stays text.
 *
 * Not verified: how the template renders values of past calls (so typing follows the schema,
 * param-typing.ts: strings verbatim — vLLM and SMG trim them — other types parsed, unknown → JSON
 * if it is JSON). vLLM's value pattern `[^<]*` rejects values containing `<`; here a value runs
 * to `</steptml:parameter>`.
 */
import type { ToolSchema } from './types.js';
import { expectLiteral, readNameAttribute, skipSpace, type HeaderRead } from './tag-headers.js';
import { TaggedCallParser, type TaggedCallFormat } from './tagged-calls.js';
import { toolParserSpec } from './stream-base.js';

const TOOL_SEP = '<｜tool_sep｜>';
const INVOKE = '<steptml:invoke';

/** `[ws] [function [ws] <｜tool_sep｜> [ws]] <steptml:invoke name="NAME">` */
function readHeader(buf: string, final: boolean): HeaderRead {
  const more = final ? 'invalid' : 'more';
  let pos = skipSpace(buf, 0);
  if (pos === buf.length) return more;
  if (buf.startsWith('function', pos)) {
    pos = skipSpace(buf, pos + 8);
    const sep = expectLiteral(buf, pos, TOOL_SEP);
    if (sep === 'invalid') return 'invalid';
    if (sep === 'more') return more;
    pos = skipSpace(buf, sep);
    if (pos === buf.length) return more;
  } else if ('function'.startsWith(buf.slice(pos))) {
    return more;
  }
  const inv = expectLiteral(buf, pos, INVOKE);
  if (inv === 'invalid') return 'invalid';
  if (inv === 'more') return more;
  const name = readNameAttribute(buf.slice(inv), final);
  return typeof name === 'string' ? name : { name: name.name, length: inv + name.length };
}

export const STEP3_TOOL_CALL: TaggedCallFormat = {
  section: { open: ['<｜tool_calls_begin｜>'], close: ['<｜tool_calls_end｜>'] },
  callOpen: '<｜tool_call_begin｜>',
  readHeader,
  callClose: ['</steptml:invoke>', '<｜tool_call_end｜>'],
  passthroughEnd: ['<｜tool_call_end｜>'],
  paramOpen: '<steptml:parameter',
  readParam: (buf, final) => {
    const r = readNameAttribute(buf, final);
    return typeof r === 'string' ? r : { key: r.name, length: r.length };
  },
  valueClose: '</steptml:parameter>',
  typing: (key, _attr, schema) => schema.typing(key),
};

export const step3ToolParser = toolParserSpec('step3', (tools: readonly ToolSchema[]) => new TaggedCallParser(STEP3_TOOL_CALL, tools));
