/**
 * The GLM MoE tool-call format, shared by `glm45_moe` (GLM-4.5 / 4.6) and `glm47_moe`
 * (GLM-4.7 / GLM-5):
 *
 *   GLM-4.5/4.6:  <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n…</tool_call>
 *   GLM-4.7:      <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>
 *
 * Sources: the models' chat templates, whose tools system prompt prints exactly this syntax:
 * https://huggingface.co/zai-org/GLM-4.5/blob/main/chat_template.jinja (as quoted in
 * ggml-org/llama.cpp#15186) and https://huggingface.co/zai-org/GLM-4.7/blob/main/chat_template.jinja
 * (read from a mirror of the hub page; how the templates render the values of past calls was
 * not visible there, so the value typing follows the reference parsers);
 * reference parsers smg-project/smg crates/tool_parser/src/parsers/glm4_moe.rs (glm45: name is
 * the first line; glm47: name is `[^<\s]+` after optional whitespace) and vLLM
 * vllm/tool_parsers/glm4_moe_tool_parser.py, glm47_moe_tool_parser.py, vllm/parser/glm47_moe.py.
 *
 * The only difference between the two generations is the whitespace between tags (4.5 puts a
 * newline after the name and around each pair; 4.7 none) and so where the name ends. One
 * grammar reads both, so either parser accepts either spelling: the name runs from the first
 * non-space character after `<tool_call>` to the next whitespace or `<`; whitespace between tags
 * is ignored. (A GLM-4.5 name containing spaces, which SMG's first-line rule would accept, cannot
 * be a declared function name anyway.) Not verified: a public GLM-5 template; SMG routes
 * `glm-5*` to glm47_moe and so does this gateway.
 *
 * Choices where the references differ:
 * - string-typed values are kept verbatim (SMG and vLLM's older parser trim them; vLLM's newer
 *   glm47 engine keeps them raw);
 * - a call naming an undeclared tool stays text in both paths (SMG's non-stream path returned it
 *   as a call; its streaming path dropped it);
 * - text after the calls stays content (SMG and vLLM keep only the text before the first call).
 */
import type { ParamTypes, ValueTyping } from './param-typing.js';
import { expectLiteral, skipSpace, type HeaderRead, type ParamRead } from './tag-headers.js';
import type { TaggedCallFormat } from './tagged-calls.js';

const ARG_KEY_CLOSE = '</arg_key>';
const ARG_VALUE_OPEN = '<arg_value>';

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function readName(buf: string, final: boolean): HeaderRead {
  const start = skipSpace(buf, 0);
  let end = start;
  while (end < buf.length) {
    const c = buf.charCodeAt(end);
    if (isSpace(c) || c === 0x3c) break;
    end++;
  }
  // The name is complete only once something follows it.
  if (end === buf.length) return final ? 'invalid' : 'more';
  if (end === start) return 'invalid';
  return { name: buf.slice(start, end), length: end };
}

/** `K</arg_key>` + whitespace + `<arg_value>`; a key holds no `<`. */
function readKey(buf: string, final: boolean): ParamRead {
  const lt = buf.indexOf('<');
  if (lt < 0) return final ? 'invalid' : 'more';
  let pos = expectLiteral(buf, lt, ARG_KEY_CLOSE);
  if (pos === 'more') return final ? 'invalid' : 'more';
  if (pos === 'invalid') return 'invalid';
  const key = buf.slice(0, lt).trim();
  pos = skipSpace(buf, pos);
  const v = expectLiteral(buf, pos, ARG_VALUE_OPEN);
  if (v === 'more') return final ? 'invalid' : 'more';
  if (v === 'invalid') return 'invalid';
  return { key, length: v };
}

export const GLM_TOOL_CALL: TaggedCallFormat = {
  callOpen: '<tool_call>',
  readHeader: readName,
  callClose: ['</tool_call>'],
  passthroughEnd: ['</tool_call>'],
  paramOpen: '<arg_key>',
  readParam: readKey,
  valueClose: '</arg_value>',
  typing: (key: string, _attr: string | undefined, schema: ParamTypes): ValueTyping => schema.typing(key),
};
