/**
 * `deepseek31`: DeepSeek-V3.1 (and V3.2-Exp) calls, which drop V3's type and code fence:
 *
 *   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
 *
 * (deepseek-ai/DeepSeek-V3.1 chat template; SMG crates/tool_parser/src/parsers/deepseek31.rs;
 * vllm/tool_parsers/deepseekv31_tool_parser.py).
 */
import { DeepSeekBlockParser, HeaderResult, SEP } from './deepseek-base.js';
import { FIND_WAIT, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const NAME_LIMIT = 256;

class DeepSeekV31Parser extends DeepSeekBlockParser {
  protected readHeader(headerStart: number): HeaderResult {
    this.pos = headerStart;
    const i = this.findWithin(SEP, NAME_LIMIT);
    if (i === FIND_WAIT) return HeaderResult.Wait;
    const name = i < 0 ? '' : this.buf.slice(this.pos, i).trim();
    if (name.length === 0 || !this.declared(name)) return HeaderResult.Reject;
    this.name = name;
    this.pos = i + SEP.length;
    return HeaderResult.Call;
  }
}

export const deepseek31ToolParser = toolParserSpec('deepseek31', (tools: readonly ToolSchema[]) => new DeepSeekV31Parser(tools));
