/**
 * `glm47_moe`: GLM-4.7 / GLM-5 tool calls,
 * `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>` (no whitespace
 * between tags). Grammar, sources and choices: glm-tool-call.ts.
 */
import { GLM_TOOL_CALL } from './glm-tool-call.js';
import { toolParserSpec } from './stream-base.js';
import { TaggedCallParser } from './tagged-calls.js';
import type { ToolSchema } from './types.js';

export const glm47MoeToolParser = toolParserSpec('glm47_moe', (tools: readonly ToolSchema[]) => new TaggedCallParser(GLM_TOOL_CALL, tools));
