/**
 * Parameter values written as bare text between tags, typed by the tool's JSON schema. The
 * formats follow different reference parsers, and the tests pin both rule sets, so both live
 * here over one schema reader:
 *
 * qwen_xml (`typedValue`; SMG crates/tool_parser/src/parsers/helpers.rs `coerce_by_schema_type`,
 * qwen_xml.rs `safe_val`; vLLM vllm/tool_parsers/qwen3coder_tool_parser.py `_convert_param_value`):
 * - the type is the first non-null one (`type`, else `anyOf`, else `oneOf`; a string enum is a
 *   string); when null is allowed, `null`/`None` (any case) is null even for strings;
 * - `string`: the text as written; `integer`, `number`, `boolean`, `null`: parsed (`True`/`False`
 *   accepted, any case), else inferred; `object`, `array`: JSON, else a Python literal (models
 *   trained on `str(dict)` renders write `{'k': 'v'}`), else the string;
 * - no schema for the key: inferred — JSON if it parses, then True/False/None, else the string.
 *
 * key/value formats (`ParamTypes` + `typedValueJson`; GLM, MiniMax, Step-3, Kimi-K3):
 * - a parameter whose only type is `string` streams as it is written (the chat templates render
 *   string values raw, so the text verbatim is the exact inverse);
 * - other values are written once complete: each allowed type in the schema's order is tried
 *   (`null`/`None`, `true`/`True`…, integers and numbers keeping every digit, objects and arrays as
 *   the models' JSON), then the text as a string if `string` is allowed, else JSON if the text is
 *   one JSON value, else the string.
 */
import { compactNumber } from './compact-writer.js';
import { compactJsonValue, MODEL_JSON } from './json-scan.js';
import { pyLiteralToJson } from './py-literal.js';
import type { ToolSchema } from './types.js';

function record(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** The schema of parameter `key` of `tool` (an own property of `properties`), or null. */
function paramSchema(tool: ToolSchema | undefined, key: string): Record<string, unknown> | null {
  const props = record(record(tool?.parameters)?.properties);
  return props !== null && Object.prototype.hasOwnProperty.call(props, key) ? record(props[key]) : null;
}

// ---- qwen_xml ----

export interface ParamType {
  /** The first non-null JSON-schema type, or null when unknown. */
  readonly type: string | null;
  readonly nullable: boolean;
}

const UNKNOWN: ParamType = { type: null, nullable: false };

function firstType(schema: Record<string, unknown>): ParamType {
  const t = schema.type;
  if (typeof t === 'string') return { type: t, nullable: t === 'null' };
  if (Array.isArray(t)) {
    const types = t.filter((x): x is string => typeof x === 'string');
    const first = types.find((x) => x !== 'null');
    return { type: first ?? (types.includes('null') ? 'null' : null), nullable: types.includes('null') };
  }
  for (const key of ['anyOf', 'oneOf']) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    let type: string | null = null;
    let nullable = false;
    for (const o of options) {
      const r = record(o);
      if (r === null) continue;
      const sub = firstType(r);
      if (sub.nullable || sub.type === 'null') nullable = true;
      if (type === null && sub.type !== null && sub.type !== 'null') type = sub.type;
    }
    return { type, nullable };
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((x) => typeof x === 'string')) return { type: 'string', nullable: false };
  return UNKNOWN;
}

/** The declared type of parameter `key` of `tool` (qwen_xml's rules). */
export function paramType(tool: ToolSchema | undefined, key: string): ParamType {
  const schema = paramSchema(tool, key);
  return schema === null ? UNKNOWN : firstType(schema);
}

const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const NULL_WORD = /^(?:null|none)$/i;

/** JSON.stringify(JSON.parse(text)), or null. */
function strictJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

function infer(raw: string): string {
  const t = raw.trim();
  const json = strictJson(t);
  if (json !== null) return json;
  if (t === 'True') return 'true';
  if (t === 'False') return 'false';
  if (t === 'None') return 'null';
  return JSON.stringify(raw);
}

/** The compact JSON for a parameter's text under its declared type (qwen_xml's rules). */
export function typedValue(raw: string, t: ParamType): string {
  const s = raw.trim();
  if (t.nullable && NULL_WORD.test(s)) return 'null';
  switch (t.type) {
    case 'string':
      return JSON.stringify(raw);
    case 'integer':
      return INTEGER.test(s) ? JSON.stringify(Number(s)) : infer(raw);
    case 'number':
      return NUMBER.test(s) ? JSON.stringify(Number(s)) : infer(raw);
    case 'boolean':
      if (/^true$/i.test(s)) return 'true';
      if (/^false$/i.test(s)) return 'false';
      return infer(raw);
    case 'null':
      return NULL_WORD.test(s) ? 'null' : infer(raw);
    case 'object':
    case 'array':
      return strictJson(s) ?? pyLiteralToJson(s) ?? JSON.stringify(raw);
    default:
      return infer(raw);
  }
}

// ---- key/value formats ----

/** How a value is written: streamed as a JSON string, or typed once complete (by these types). */
export type ValueTyping = { stream: true } | { stream: false; types: readonly string[] };

const STREAM_STRING: ValueTyping = { stream: true };
const UNTYPED: ValueTyping = { stream: false, types: [] };

/** Every type `schema` allows: `type` (or its list), then `anyOf` and `oneOf` alternatives, recursively. */
function allTypes(schema: unknown, into: Set<string>): void {
  const s = record(schema);
  if (s === null) return;
  const t = s.type;
  if (typeof t === 'string') into.add(t);
  else if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') into.add(x);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts)) for (const a of alts) allTypes(a, into);
  }
}

/** Per-parameter typing of one tool, looked up by key (memoized per call). */
export class ParamTypes {
  private readonly cache = new Map<string, ValueTyping>();

  constructor(private readonly tool: ToolSchema | undefined) {}

  typing(key: string): ValueTyping {
    let t = this.cache.get(key);
    if (t === undefined) {
      const schema = paramSchema(this.tool, key);
      const set = new Set<string>();
      if (schema !== null) allTypes(schema, set);
      t = schema === null ? UNTYPED : set.size === 1 && set.has('string') ? STREAM_STRING : { stream: false, types: [...set] };
      this.cache.set(key, t);
    }
    return t;
  }
}

/** Compact JSON for a complete raw value, typed by `types` (the key/value formats' rules). */
export function typedValueJson(raw: string, types: readonly string[]): string {
  const t = raw.trim();
  for (const type of types) {
    let json: string | null = null;
    switch (type) {
      case 'null':
        if (t === 'null' || t === 'None') json = 'null';
        break;
      case 'boolean':
        if (t === 'true' || t === 'True') json = 'true';
        else if (t === 'false' || t === 'False') json = 'false';
        break;
      case 'integer':
        if (/^-?\d+$/.test(t)) json = compactNumber(t, true) ?? String(Number(t));
        break;
      case 'number':
        json = compactNumber(t, true);
        break;
      case 'object':
      case 'array': {
        const c = compactJsonValue(t, MODEL_JSON);
        if (c !== null && c[0] === (type === 'object' ? '{' : '[')) json = c;
        break;
      }
    }
    if (json !== null) return json;
  }
  if (types.includes('string')) return JSON.stringify(raw);
  return compactJsonValue(t, MODEL_JSON) ?? JSON.stringify(raw);
}
