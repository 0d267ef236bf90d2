/**
 * How a chat choice's text is read (request-pipeline §11.4): reasoning split first (when
 * separate_reasoning and a reasoning parser resolves), then tool calls on the remaining text —
 * the forced-call JSON (§10.4) under a JSON-schema tool constraint, else the model's tool parser
 * when tools may be called. Null when the text is plain content.
 */
import type { ReasoningOptions, ReasoningParserSpec } from '../parsers/reasoning/types.js';
import type { ParsedItem, StreamingParser } from '../parsers/types.js';
import type { ToolParserSpec, ToolSchema } from '../parsers/tools/types.js';
import { parseForcedToolCalls } from '../tools/tool-calls.js';
import type { ToolCallShape } from '../tools/tool-choice.js';
import { type OutputPlan, type ToolCallIdFn, chainParse, chainParsers } from './output-plan.js';

export interface ReasoningStage {
  spec: ReasoningParserSpec;
  options: ReasoningOptions;
  /** `stream_reasoning: false`: reasoning is held and sent once, when the choice ends. */
  hold: boolean;
}

export type ToolStage =
  | { kind: 'parser'; spec: ToolParserSpec; tools: ToolSchema[] }
  /** A forced call under a JSON-schema constraint; `array` streams through the json parser. */
  | { kind: 'forced'; shape: ToolCallShape; json: ToolParserSpec; tools: ToolSchema[] };

export function chatOutputPlan(reasoning: ReasoningStage | null, tools: ToolStage | null, toolCallId: ToolCallIdFn): OutputPlan | null {
  if (!reasoning && !tools) return null;
  const toolStream = (): StreamingParser | null => {
    if (!tools) return null;
    if (tools.kind === 'parser') return tools.spec.create(tools.tools);
    return tools.shape.kind === 'function' ? namedToolStream(tools.shape.name) : tools.json.create(tools.tools);
  };
  const toolParse = (text: string): ParsedItem[] => {
    if (!tools) return [{ kind: 'text', text }];
    return tools.kind === 'parser' ? tools.spec.parse(text, tools.tools) : parseForcedToolCalls(text, tools.shape);
  };
  return {
    createParser() {
      const t = toolStream();
      if (!reasoning) return t as StreamingParser;
      const r = reasoning.hold ? holdReasoning(reasoning.spec.create(reasoning.options)) : reasoning.spec.create(reasoning.options);
      return t ? chainParsers(r, t) : r;
    },
    parse(text) {
      if (!reasoning) return toolParse(text);
      return chainParse((s) => reasoning.spec.parse(s, reasoning.options), toolParse, text);
    },
    toolCallId,
  };
}

/**
 * Streaming a named forced function: the choice's first text opens the call and every text delta
 * is passed through verbatim as its arguments (SMG sends the raw model text, §10.4).
 */
export function namedToolStream(name: string): StreamingParser {
  let opened = false;
  return {
    push(delta) {
      if (delta.length === 0) return [];
      const args: ParsedItem = { kind: 'tool_args', tool: 0, text: delta };
      if (opened) return [args];
      opened = true;
      return [{ kind: 'tool_start', tool: 0, name }, args];
    },
    finish: () => [],
  };
}

/** Keeps reasoning items back until the end of the stream, then releases them as one item first. */
function holdReasoning(inner: StreamingParser): StreamingParser {
  let held = '';
  const pass = (items: ParsedItem[]) => {
    const out: ParsedItem[] = [];
    for (const it of items) {
      if (it.kind === 'reasoning') held += it.text;
      else out.push(it);
    }
    return out;
  };
  return {
    push: (delta) => pass(inner.push(delta)),
    finish() {
      const rest = pass(inner.finish());
      return held ? [{ kind: 'reasoning', text: held }, ...rest] : rest;
    },
  };
}
