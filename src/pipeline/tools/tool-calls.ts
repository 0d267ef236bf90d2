/**
 * Tool-call ids (request-pipeline §11.5) and reading a forced (JSON-schema constrained) tool call
 * back from the output (§10.4).
 */
import { uuidv7 } from '../ids.js';
import type { ToolCallIdFn } from '../output/output-plan.js';
import type { ParsedItem } from '../parsers/types.js';
import type { ToolCallShape } from './tool-choice.js';

/**
 * Ids as SMG mints them: Kimi models get their chat format's own ids, numbered after the calls
 * already in the conversation so the model can tell them apart; everyone else a random `call_` id.
 */
export function toolCallIds(model: string, messages: readonly Record<string, unknown>[]): ToolCallIdFn {
  const lower = model.toLowerCase();
  if (!lower.includes('kimi')) return () => `call_${uuidv7().replaceAll('-', '').slice(0, 24)}`;
  let history = 0;
  for (const m of messages) {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) history += m.tool_calls.length;
  }
  return lower.includes('k3')
    ? (name, index) => `${name}_${history + index}`
    : (name, index) => `functions.${name}:${history + index}`;
}

/**
 * Non-streaming: the whole text is either one function's arguments or an array of
 * `{name, parameters}`. Anything unparsable stays content, as the constraint may have been cut
 * short (max_tokens) or ignored by the engine. Arguments are re-serialized compactly: the model's
 * own whitespace is not part of them.
 */
export function parseForcedToolCalls(text: string, shape: ToolCallShape): ParsedItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ kind: 'text', text }];
  }
  if (shape.kind === 'function') return call(0, shape.name, value);
  if (!Array.isArray(value)) return [{ kind: 'text', text }];
  const items: ParsedItem[] = [];
  let n = 0;
  for (const el of value as unknown[]) {
    if (el === null || typeof el !== 'object') continue;
    const { name, parameters } = el as Record<string, unknown>;
    if (typeof name !== 'string' || parameters === undefined) continue;
    items.push(...call(n++, name, parameters));
  }
  return n > 0 ? items : [{ kind: 'text', text }];
}

function call(tool: number, name: string, args: unknown): ParsedItem[] {
  return [
    { kind: 'tool_start', tool, name },
    { kind: 'tool_args', tool, text: JSON.stringify(args) },
  ];
}
