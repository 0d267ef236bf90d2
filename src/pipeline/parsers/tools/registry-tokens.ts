/**
 * The model-specific token-format tool-call parsers (request-pipeline §11.3), by registry name.
 * The JSON-family parsers and the full registry live in registry.ts.
 */
import type { ToolParserSpec } from './types.js';
import { glm45MoeToolParser } from './glm45_moe.js';
import { glm47MoeToolParser } from './glm47_moe.js';
import { kimiK2ToolParser } from './kimik2.js';
import { kimiK3ToolParser } from './kimi_k3.js';
import { minimaxM2ToolParser } from './minimax_m2.js';
import { step3ToolParser } from './step3.js';
import { cohereToolParser } from './cohere.js';
import { sarashinaToolParser } from './sarashina.js';
import { inklingToolParser } from './inkling.js';

export const TOKEN_FORMAT_TOOL_PARSERS: ToolParserSpec[] = [
  glm45MoeToolParser,
  glm47MoeToolParser,
  kimiK2ToolParser,
  kimiK3ToolParser,
  minimaxM2ToolParser,
  step3ToolParser,
  cohereToolParser,
  sarashinaToolParser,
  inklingToolParser,
];
