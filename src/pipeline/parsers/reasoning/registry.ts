/**
 * The reasoning-parser registry and model-name auto-detection (request-pipeline.md §11.2; SMG
 * crates/reasoning_parser/src/factory.rs @ f8daa88).
 */
import type { ReasoningParserSpec } from './types.js';
import { cohereCmd } from './families/cohere.js';
import { deepseekR1, deepseekV31, deepseekV4 } from './families/deepseek.js';
import { base, passthrough } from './families/generic.js';
import { glm45 } from './families/glm.js';
import { inkling } from './families/inkling.js';
import { kimiK3 } from './families/kimi-k3.js';
import { kimi, kimiK25, kimiThinking } from './families/kimi.js';
import { minimax } from './families/minimax.js';
import { nanoV3 } from './families/nemotron.js';
import { qwen3, qwen3Thinking } from './families/qwen.js';
import { step3 } from './families/step3.js';

const ALL: readonly ReasoningParserSpec[] = [
  base,
  passthrough,
  deepseekR1,
  deepseekV31,
  deepseekV4,
  qwen3,
  qwen3Thinking,
  glm45,
  kimiThinking,
  kimiK25,
  kimiK3,
  kimi,
  step3,
  minimax,
  cohereCmd,
  nanoV3,
  inkling,
];

/** Every reasoning parser by its `--reasoning-parser` name. */
export const REASONING_PARSERS: ReadonlyMap<string, ReasoningParserSpec> = new Map(ALL.map((p) => [p.name, p]));

/** Registered names, sorted (as SMG lists them). */
export function reasoningParserNames(): string[] {
  return [...REASONING_PARSERS.keys()].sort();
}

/**
 * Auto-detect patterns, in table order: the FIRST pattern the lowercased model name contains
 * wins, so the specific names must precede the generic ones they contain (`deepseek-r1` before
 * `qwen` for "DeepSeek-R1-Distill-Qwen", `qwen3-thinking` before `qwen3`, `kimi-k2-thinking`,
 * `kimi-k2.5` and `kimi-k3` before `kimi`).
 */
const AUTO_DETECT: ReadonlyArray<readonly [pattern: string, parser: string]> = [
  ['deepseek-r1', 'deepseek_r1'],
  ['deepseek-v4', 'deepseek_v4'],
  ['deepseek_v4', 'deepseek_v4'],
  ['deepseek-v3.1', 'deepseek_v31'],
  ['deepseek-v3-1', 'deepseek_v31'],
  ['qwen3-thinking', 'qwen3_thinking'],
  ['qwen-thinking', 'qwen3_thinking'],
  ['qwen3', 'qwen3'],
  ['qwen', 'qwen3'],
  ['glm45', 'glm45'],
  ['glm47', 'glm45'],
  ['glm-5', 'glm45'],
  ['kimi-k2-thinking', 'kimi_thinking'],
  ['kimi-k2.5', 'kimi_k25'],
  ['kimi-k3', 'kimi_k3'],
  ['kimi_k3', 'kimi_k3'],
  ['kimi', 'kimi'],
  ['step3', 'step3'],
  ['minimax', 'minimax'],
  ['minimax-m2', 'minimax'],
  ['mm-m2', 'minimax'],
  ['command-r', 'cohere_cmd'],
  ['command-a', 'cohere_cmd'],
  ['c4ai-command', 'cohere_cmd'],
  ['cohere', 'cohere_cmd'],
  ['nemotron-nano', 'nano_v3'],
  ['nemotron-super', 'nano_v3'],
  ['nano-v3', 'nano_v3'],
  ['nemotron-3', 'nano_v3'],
  ['inkling', 'inkling'],
];

/** The parser auto-detected for a model name, or null (no reasoning separation). */
export function detectReasoningParser(model: string): string | null {
  const lower = model.toLowerCase();
  for (const [pattern, parser] of AUTO_DETECT) if (lower.includes(pattern)) return parser;
  return null;
}
