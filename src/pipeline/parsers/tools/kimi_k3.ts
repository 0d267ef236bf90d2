/**
 * `kimi_k3`: Kimi-K3 XTML tool calls. `<|open|>`, `<|close|>` and `<|sep|>` are control tokens;
 * calls live in a `tools` channel after the `response` channel:
 *
 *   <|open|>response<|sep|>CONTENT<|close|>response<|sep|>
 *   <|open|>tools<|sep|>
 *     <|open|>call tool="NAME" index="N"<|sep|>
 *       <|open|>argument key="K" type="T"<|sep|>VALUE<|close|>argument<|sep|>
 *     <|close|>call<|sep|>
 *   <|close|>tools<|sep|>
 *
 * Sources (no public Kimi-K3 chat template or tokenizer config was found): the reference parsers
 * vLLM vllm/tool_parsers/kimi_k3_tool_parser.py (the module docstring describes the format and
 * the template's inverse encoding) and smg-project/smg crates/tool_parser/src/parsers/kimi_k3.rs
 * (a port of it, plus the structural-tag grammar that pins the syntax above). Verified only
 * against those two; the exact token spelling could not be checked against a tokenizer.
 *
 * As in the references: `type="string"` values are raw text (no unescaping); any other type is
 * JSON-decoded, falling back to the raw text; attribute values decode `&quot;` and `&amp;`; the
 * model's `index` attribute is ignored (calls are numbered in order); the response-channel
 * markers (`<|open|>response<|sep|>`, `<|close|>response<|sep|>`, `<|close|>message<|sep|>`) are
 * framing and removed from the text. Differences: the references keep only the response body
 * (text before the tools channel elsewhere is dropped); here all text outside the tools channel
 * stays, minus the framing. Whitespace inside markers (`<|open|> tools <|sep|>`), which the
 * references tolerate as a defence against spaced detokenization, is not accepted: the gateway
 * decodes without inserted spaces. A call naming an undeclared tool stays text.
 */
import type { ToolSchema } from './types.js';
import { readAttributes, type HeaderRead, type ParamRead } from './tag-headers.js';
import { TaggedCallParser, type TaggedCallFormat } from './tagged-calls.js';
import { toolParserSpec } from './stream-base.js';

const SEP = '<|sep|>';

/** ` attr="…" …<|sep|>`: the attributes (which must follow a space) and the length through SEP. */
function readTagAttributes(buf: string, final: boolean): { attrs: Map<string, string>; length: number } | 'more' | 'invalid' {
  const end = buf.indexOf(SEP);
  if (end < 0) return final ? 'invalid' : 'more';
  const c = buf.charCodeAt(0);
  if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return 'invalid';
  return { attrs: readAttributes(buf.slice(0, end)), length: end + SEP.length };
}

function readCall(buf: string, final: boolean): HeaderRead {
  const r = readTagAttributes(buf, final);
  if (typeof r === 'string') return r;
  const name = r.attrs.get('tool');
  return name ? { name, length: r.length } : 'invalid';
}

function readArgument(buf: string, final: boolean): ParamRead {
  const r = readTagAttributes(buf, final);
  if (typeof r === 'string') return r;
  return { key: r.attrs.get('key') ?? '', type: r.attrs.get('type'), length: r.length };
}

export const KIMI_K3_TOOL_CALL: TaggedCallFormat = {
  section: { open: ['<|open|>tools<|sep|>'], close: ['<|close|>tools<|sep|>'] },
  dropFromText: ['<|open|>response<|sep|>', '<|close|>response<|sep|>', '<|close|>message<|sep|>'],
  callOpen: '<|open|>call',
  readHeader: readCall,
  callClose: ['<|close|>call<|sep|>'],
  passthroughEnd: ['<|close|>call<|sep|>'],
  paramOpen: '<|open|>argument',
  readParam: readArgument,
  valueClose: '<|close|>argument<|sep|>',
  // The model states each value's type; the schema is not consulted.
  typing: (_key, typeAttr) => (typeAttr === undefined || typeAttr === 'string' ? { stream: true } : { stream: false, types: [] }),
};

export const kimiK3ToolParser = toolParserSpec('kimi_k3', (tools: readonly ToolSchema[]) => new TaggedCallParser(KIMI_K3_TOOL_CALL, tools));
