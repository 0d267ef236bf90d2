/** `deepseek32`: DeepSeek-V3.2's DSML calls, block `function_calls` (see deepseek-dsml.ts). */
import { dsmlParser } from './deepseek-dsml.js';
import { toolParserSpec } from './stream-base.js';

export const deepseek32ToolParser = toolParserSpec('deepseek32', (tools) => dsmlParser(tools, 'function_calls'));
