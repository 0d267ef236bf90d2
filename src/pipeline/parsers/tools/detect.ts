/**
 * Tool-parser auto-detection from the model name (request-pipeline §11.1 step 3, §11.3): an exact
 * key of the table first; otherwise the longest pattern stem (the pattern minus its trailing `*`)
 * that the lowercased model name contains; no match → `passthrough`. The table is SMG's
 * (crates/tool_parser/src/factory.rs `register_default_mappings`), families of both helpers
 * included. Stems of equal length that both match resolve to the one listed first (SMG leaves that
 * to hash-map order; no two stems in this table tie with different parsers on a real name).
 * Patterns with a `*` inside (SMG's `moonshot*` + `/Kimi-K2*` forms) are kept as SMG has them;
 * their stem keeps the inner `*`, so they only ever match a name holding a literal `*`.
 */

const TABLE: ReadonlyArray<readonly [pattern: string, parser: string]> = [
  ['gpt-4*', 'json'],
  ['gpt-3.5*', 'json'],
  ['gpt-4o*', 'json'],
  ['claude-*', 'json'],
  ['mistral-*', 'mistral'],
  ['mixtral-*', 'mistral'],
  ['Qwen/Qwen3.5*', 'qwen_xml'],
  ['Qwen3.5*', 'qwen_xml'],
  ['qwen3.5*', 'qwen_xml'],
  ['qwen/qwen3.5*', 'qwen_xml'],
  ['Qwen/Qwen3.6*', 'qwen_xml'],
  ['Qwen3.6*', 'qwen_xml'],
  ['qwen3.6*', 'qwen_xml'],
  ['qwen/qwen3.6*', 'qwen_xml'],
  ['Qwen/Qwen3.8*', 'qwen_xml'],
  ['Qwen3.8*', 'qwen_xml'],
  ['qwen3.8*', 'qwen_xml'],
  ['qwen/qwen3.8*', 'qwen_xml'],
  ['Qwen/Qwen3-Coder*', 'qwen_xml'],
  ['Qwen3-Coder*', 'qwen_xml'],
  ['qwen3-coder*', 'qwen_xml'],
  ['qwen/qwen3-coder*', 'qwen_xml'],
  ['qwen*', 'qwen'],
  ['Qwen*', 'qwen'],
  ['nemotron-3*', 'qwen_xml'],
  ['llama-4*', 'pythonic'],
  ['meta-llama-4*', 'pythonic'],
  ['llama-3.2*', 'llama'],
  ['meta-llama-3.2*', 'llama'],
  ['llama-*', 'json'],
  ['meta-llama-*', 'json'],
  ['deepseek-v3*', 'deepseek'],
  ['deepseek-ai/DeepSeek-V3*', 'deepseek'],
  ['deepseek-v3.1*', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.1*', 'deepseek31'],
  ['deepseek-v3.2-exp*', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.2-Exp*', 'deepseek31'],
  ['deepseek-v3.2*', 'deepseek32'],
  ['deepseek-ai/DeepSeek-V3.2*', 'deepseek32'],
  ['deepseek-v4*', 'deepseek_v4'],
  ['deepseek-ai/DeepSeek-V4*', 'deepseek_v4'],
  ['deepseek-*', 'pythonic'],
  ['glm-4.5*', 'glm45_moe'],
  ['glm-4.6*', 'glm45_moe'],
  ['glm-4.7*', 'glm47_moe'],
  ['glm-5*', 'glm47_moe'],
  ['glm-*', 'json'],
  ['sarashina*', 'sarashina'],
  ['Sarashina*', 'sarashina'],
  ['step3*', 'step3'],
  ['Step-3*', 'step3'],
  ['kimi-k2*', 'kimik2'],
  ['Kimi-K2*', 'kimik2'],
  ['moonshot*/Kimi-K2*', 'kimik2'],
  ['kimi-k3*', 'kimi_k3'],
  ['Kimi-K3*', 'kimi_k3'],
  ['moonshot*/Kimi-K3*', 'kimi_k3'],
  ['kimi_k3*', 'kimi_k3'],
  ['Kimi_K3*', 'kimi_k3'],
  ['moonshot*/Kimi_K3*', 'kimi_k3'],
  ['inkling*', 'inkling'],
  ['Inkling*', 'inkling'],
  ['minimax*', 'minimax_m2'],
  ['MiniMax*', 'minimax_m2'],
  ['command-r*', 'cohere'],
  ['command-r-plus*', 'cohere'],
  ['command-a*', 'cohere'],
  ['c4ai-command*', 'cohere'],
  ['cohere*', 'cohere'],
  ['CohereForAI*', 'cohere'],
  ['gemini-*', 'json'],
  ['palm-*', 'json'],
  ['gemma-*', 'json'],
];

/** The pattern → parser table, in SMG's registration order. */
export const TOOL_PARSER_PATTERNS: ReadonlyArray<readonly [pattern: string, parser: string]> = TABLE;

const EXACT = new Map<string, string>(TABLE.map(([p, parser]) => [p, parser]));
const STEMS = TABLE.filter(([p]) => p.endsWith('*')).map(([p, parser]) => [p.slice(0, -1).toLowerCase(), parser] as const);

/** The tool parser for `model` (`passthrough` when no pattern matches). */
export function detectToolParser(model: string): string {
  const exact = EXACT.get(model);
  if (exact !== undefined) return exact;
  const lower = model.toLowerCase();
  let best = '';
  let parser = 'passthrough';
  for (const [stem, p] of STEMS) {
    if (stem.length > best.length && lower.includes(stem)) {
      best = stem;
      parser = p;
    }
  }
  return parser;
}
