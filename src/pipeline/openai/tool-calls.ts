/**
 * Reading tool calls back from the output of a forced (JSON-schema constrained) tool choice
 * (request-pipeline §10.4) and the tool-call ids they get (§11.5).
 */
import { uuidv7 } from '../ids.js';
import type { ToolCallShape } from './tool-choice.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Tool-call id for the `index`-th call of one choice. */
export type ToolCallIdFn = (name: string, index: number) => string;

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

export interface ParsedToolOutput {
  calls: ToolCall[];
  /** Text left as message content: all of it when nothing parsed, else none. */
  content: string | null;
}

/**
 * Non-streaming: the whole text is either one function's arguments or an array of
 * `{name, parameters}`. Anything unparsable stays content, as the constraint may have been cut
 * short (max_tokens) or ignored by the engine.
 */
export function parseForcedToolCalls(text: string, shape: ToolCallShape, idFor: ToolCallIdFn): ParsedToolOutput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { calls: [], content: text };
  }
  if (shape.kind === 'function') {
    return { calls: [call(idFor(shape.name, 0), shape.name, value)], content: null };
  }
  if (!Array.isArray(value)) return { calls: [], content: text };
  const calls: ToolCall[] = [];
  for (const item of value as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const { name, parameters } = item as Record<string, unknown>;
    if (typeof name !== 'string' || parameters === undefined) continue;
    calls.push(call(idFor(name, calls.length), name, parameters));
  }
  return { calls, content: calls.length > 0 ? null : text };
}

function call(id: string, name: string, args: unknown): ToolCall {
  // Re-serialized compactly: the model's own whitespace is not part of the arguments.
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/**
 * Streaming a named forced function: the choice's first text opens the call (id, type, name) and
 * every text delta is passed through verbatim as arguments. Returns the `delta` objects to send.
 */
export class NamedToolStream {
  private opened = false;

  constructor(
    private readonly name: string,
    private readonly idFor: ToolCallIdFn,
  ) {}

  get started(): boolean {
    return this.opened;
  }

  deltas(text: string): string[] {
    const out: string[] = [];
    if (text.length === 0) return out;
    if (!this.opened) {
      this.opened = true;
      const head = { index: 0, id: this.idFor(this.name, 0), type: 'function', function: { name: this.name } };
      out.push(toolDelta(head));
    }
    out.push(toolDelta({ index: 0, function: { arguments: text } }));
    return out;
  }
}

function toolDelta(item: Record<string, unknown>): string {
  return `{"role":"assistant","tool_calls":[${JSON.stringify(item)}],"reasoning_content":null}`;
}

/** A finish reason once calls were made: a clean stop becomes `tool_calls`; length/abort stay (§11.4). */
export function toolFinish(reason: string, madeCalls: boolean): string {
  return madeCalls && reason === 'stop' ? 'tool_calls' : reason;
}
