/**
 * Which parsers read a model's output (request-pipeline §11.1): a model card / worker label
 * (`tool_parser`, `reasoning_parser`) first, then the `--tool-call-parser` / `--reasoning-parser`
 * flags, then auto-detection from the model name. A configured name that no registry knows is
 * warned about once and auto-detection is used instead. Results are memoized per model and
 * configuration (resolution runs on every request).
 */
import { REASONING_PARSERS, detectReasoningParser } from './reasoning/registry.js';
import type { ReasoningParserSpec } from './reasoning/types.js';
import { detectToolParser } from './tools/detect.js';
import { TOOL_PARSERS } from './tools/registry.js';
import type { ToolParserSpec } from './tools/types.js';

/** Parser names configured for a model (card/labels over flags); null = not configured. */
export interface ConfiguredParsers {
  tool: string | null;
  reasoning: string | null;
}

export interface ResolvedParsers {
  reasoning: ReasoningParserSpec | null;
  /** Null when no tool parser applies (`passthrough`, or nothing configured or detected). */
  tool: ToolParserSpec | null;
}

const memo = new Map<string, ResolvedParsers>();
const warned = new Set<string>();

export function resolveParsers(model: string, configured: ConfiguredParsers, warn: (message: string) => void): ResolvedParsers {
  const key = `${model}\u0000${configured.tool ?? ''}\u0000${configured.reasoning ?? ''}`;
  let r = memo.get(key);
  if (r) return r;
  const unknown = (kind: string, name: string) => {
    const id = `${kind}:${name}`;
    if (warned.has(id)) return;
    warned.add(id);
    warn(`unknown ${kind} parser '${name}' configured for model '${model}'; using auto-detection instead`);
  };

  let reasoning: ReasoningParserSpec | null = null;
  if (configured.reasoning !== null) {
    reasoning = REASONING_PARSERS.get(configured.reasoning) ?? null;
    if (!reasoning) unknown('reasoning', configured.reasoning);
  }
  if (!reasoning) {
    const detected = detectReasoningParser(model);
    reasoning = detected === null ? null : (REASONING_PARSERS.get(detected) ?? null);
  }

  let tool: ToolParserSpec | null = null;
  if (configured.tool !== null) {
    tool = TOOL_PARSERS.get(configured.tool) ?? null;
    if (!tool) unknown('tool-call', configured.tool);
  }
  if (!tool) tool = TOOL_PARSERS.get(detectToolParser(model)) ?? null;
  // `passthrough` parses nothing: "no parser available" (§11.3).
  if (tool?.name === 'passthrough') tool = null;

  r = { reasoning, tool };
  memo.set(key, r);
  return r;
}
