/**
 * `glm45_moe`: GLM-4.5 / GLM-4.6 tool calls,
 * `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n…</tool_call>`.
 * Grammar, sources and choices: glm-tool-call.ts.
 */
import type { ToolParserSpec, ToolSchema } from './types.js';
import { GLM_TOOL_CALL } from './glm-tool-call.js';
import { TaggedCallParser } from './tagged-calls.js';
import { wholeText } from './token-stream-base.js';

const create = (tools: readonly ToolSchema[]) => new TaggedCallParser(GLM_TOOL_CALL, tools);

export const glm45MoeToolParser: ToolParserSpec = {
  name: 'glm45_moe',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
