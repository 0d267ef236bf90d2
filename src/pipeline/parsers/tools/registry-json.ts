/**
 * The JSON-family tool parsers of request-pipeline §11.3, by registry name (the model-token
 * formats — glm, kimi, minimax, step3, cohere, sarashina, inkling — live in the other fragment).
 */
import { deepseekToolParser } from './deepseek.js';
import { deepseek31ToolParser } from './deepseek31.js';
import { deepseek32ToolParser } from './deepseek32.js';
import { deepseekV4ToolParser } from './deepseek-v4.js';
import { jsonToolParser } from './json.js';
import { llamaToolParser } from './llama.js';
import { mistralToolParser } from './mistral.js';
import { passthroughToolParser } from './passthrough.js';
import { pythonicToolParser } from './pythonic.js';
import { qwenToolParser } from './qwen.js';
import { nemotronToolParser, qwenCoderToolParser, qwenXmlToolParser } from './qwen-xml.js';
import type { ToolParserSpec } from './types.js';

export const JSON_FAMILY_TOOL_PARSERS: ToolParserSpec[] = [
  passthroughToolParser,
  jsonToolParser,
  mistralToolParser,
  qwenToolParser,
  qwenXmlToolParser,
  qwenCoderToolParser,
  nemotronToolParser,
  pythonicToolParser,
  llamaToolParser,
  deepseekToolParser,
  deepseek31ToolParser,
  deepseek32ToolParser,
  deepseekV4ToolParser,
];
