/**
 * Checks every protocol applies to a function tool definition before it reaches a chat template
 * or a grammar: the name OpenAI and Anthropic both require (`^[a-zA-Z0-9_-]{1,64}$`,
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools and
 * https://docs.anthropic.com/en/api/messages), a parameters schema ajv can compile, and names that
 * are unique within the request (a parser could not tell two same-named tools apart).
 * `where` is the field path in the protocol's own body (`tools[2].function.name`, `tools[2].name`).
 */
import { invalid } from '../pipeline/errors.js';
import { jsonSchemaProblem } from './json-schema-check.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const TOOL_NAME_RULE = "1 to 64 characters of a-z, A-Z, 0-9, '_' or '-'";

function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** The name, or a 400: `<where>: must be a string` / `<where>: must be 1 to 64 characters of …`. */
export function checkToolName(name: unknown, where: string): string {
  if (name === undefined || name === null) throw invalid(`${where}: field is required`, where);
  if (typeof name !== 'string') throw invalid(`${where}: must be a string, got ${shown(name)}`, where);
  if (!TOOL_NAME.test(name)) throw invalid(`${where}: must be ${TOOL_NAME_RULE}, got ${shown(name)}`, where);
  return name;
}

/** A tool's parameter schema (absent/null = no parameters): a JSON Schema object ajv compiles. */
export function checkToolSchema(schema: unknown, where: string, toolName: string): void {
  if (schema === undefined || schema === null) return;
  const problem = jsonSchemaProblem(schema);
  if (problem !== null) throw invalid(`${where}: tool '${toolName}': ${problem}`, where);
}

/** Optional string fields of a tool (`description`). */
export function checkOptString(v: unknown, where: string): void {
  if (v !== undefined && v !== null && typeof v !== 'string') throw invalid(`${where}: must be a string, got ${shown(v)}`, where);
}

export function checkOptBool(v: unknown, where: string): void {
  if (v !== undefined && v !== null && typeof v !== 'boolean') throw invalid(`${where}: must be a boolean, got ${shown(v)}`, where);
}

/** Tracks names across a request's tools; the second use of a name is the 400. */
export class ToolNames {
  private readonly seen = new Map<string, string>();

  add(name: string, where: string): void {
    const first = this.seen.get(name);
    if (first !== undefined) throw invalid(`${where}: duplicate tool name '${name}' (${first} has the same name)`, where);
    this.seen.set(name, where);
  }
}
