/**
 * `glm47_moe`: GLM-4.7 / GLM-5 tool calls,
 * `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>` (no whitespace
 * between tags). Grammar, sources and choices: glm-tool-call.ts.
 */
import type { ToolParserSpec, ToolSchema } from './types.js';
import { GLM_TOOL_CALL } from './glm-tool-call.js';
import { TaggedCallParser } from './tagged-calls.js';
import { wholeText } from './token-stream-base.js';

const create = (tools: readonly ToolSchema[]) => new TaggedCallParser(GLM_TOOL_CALL, tools);

export const glm47MoeToolParser: ToolParserSpec = {
  name: 'glm47_moe',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
