import type { ParsedItem, StreamingParser } from '../types.js';

/** A declared function tool as the parsers see it (after tool_choice filtering). */
export interface ToolSchema {
  name: string;
  /** JSON Schema of the arguments, when declared (qwen_xml types values by it). */
  parameters?: Record<string, unknown>;
}

/**
 * Tool-call parsers turn model-native call syntax into `tool_start` / `tool_args` items and leave
 * everything else as `text` (request-pipeline §11.3). Arguments are emitted as compact JSON
 * (`JSON.stringify` of the parsed value, key order preserved), streamed as diffs. A call naming a
 * tool that is not declared stays text. Malformed syntax stays text; a parser never throws.
 */
export interface ToolParserSpec {
  /** Registry name, as `--tool-call-parser` takes it. */
  readonly name: string;
  create(tools: readonly ToolSchema[]): StreamingParser;
  parse(text: string, tools: readonly ToolSchema[]): ParsedItem[];
}
