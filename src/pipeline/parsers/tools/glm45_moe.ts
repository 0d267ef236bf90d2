/**
 * `glm45_moe`: GLM-4.5 / GLM-4.6 tool calls,
 * `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n…</tool_call>`.
 * Grammar, sources and choices: glm-tool-call.ts.
 */
import { GLM_TOOL_CALL } from './glm-tool-call.js';
import { toolParserSpec } from './stream-base.js';
import { TaggedCallParser } from './tagged-calls.js';
import type { ToolSchema } from './types.js';

export const glm45MoeToolParser = toolParserSpec('glm45_moe', (tools: readonly ToolSchema[]) => new TaggedCallParser(GLM_TOOL_CALL, tools));
