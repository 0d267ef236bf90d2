/**
 * Every tool-call parser by its `--tool-call-parser` name (request-pipeline §11.3): the JSON-family
 * parsers and the model-token formats, each fragment kept by the files that implement it.
 */
import { JSON_FAMILY_TOOL_PARSERS } from './registry-json.js';
import { TOKEN_FORMAT_TOOL_PARSERS } from './registry-tokens.js';
import type { ToolParserSpec } from './types.js';

export const TOOL_PARSERS: ReadonlyMap<string, ToolParserSpec> = new Map(
  [...JSON_FAMILY_TOOL_PARSERS, ...TOKEN_FORMAT_TOOL_PARSERS].map((p) => [p.name, p]),
);

/** Registered names, sorted. */
export function toolParserNames(): string[] {
  return [...TOOL_PARSERS.keys()].sort();
}
