/** `deepseek_v4`: DeepSeek-V4's DSML calls, block `tool_calls` (see deepseek-dsml.ts). */
import { dsmlParser } from './deepseek-dsml.js';
import { toolParserSpec } from './stream-base.js';

export const deepseekV4ToolParser = toolParserSpec('deepseek_v4', (tools) => dsmlParser(tools, 'tool_calls'));
