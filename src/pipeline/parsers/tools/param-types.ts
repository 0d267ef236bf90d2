/**
 * Typing a parameter value written as bare text (qwen_xml's `<parameter=K>V</parameter>`) by the
 * tool's JSON schema, as SMG (crates/tool_parser/src/parsers/helpers.rs `coerce_by_schema_type`,
 * qwen_xml.rs `safe_val`) and vLLM (vllm/tool_parsers/qwen3coder_tool_parser.py
 * `_convert_param_value`) do:
 *
 * - `string`: the text as written;
 * - `integer`, `number`, `boolean`, `null`: parsed (`True`/`False`/`None` accepted); text that does
 *   not parse falls back to inference;
 * - `object`, `array`: parsed as JSON, else as a Python literal (models trained on `str(dict)`
 *   renders write `{'k': 'v'}`), else kept as a string;
 * - no schema for the key (or a type we do not know): inferred — JSON if it parses, then
 *   True/False/None, else the string.
 *
 * A type list or anyOf/oneOf uses its first non-null type; when null is allowed, `null`/`None`
 * becomes null even for strings.
 */
import { pyLiteralToJson } from './py-literal.js';
import type { ToolSchema } from './types.js';

export interface ParamType {
  /** The first non-null JSON-schema type, or null when unknown. */
  readonly type: string | null;
  readonly nullable: boolean;
}

const UNKNOWN: ParamType = { type: null, nullable: false };

function record(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function typeOfSchema(schema: Record<string, unknown>): ParamType {
  const t = schema.type;
  if (typeof t === 'string') return { type: t === 'null' ? 'null' : t, nullable: t === 'null' };
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
      const sub = typeOfSchema(r);
      if (sub.nullable || sub.type === 'null') nullable = true;
      if (type === null && sub.type !== null && sub.type !== 'null') type = sub.type;
    }
    return { type, nullable };
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((x) => typeof x === 'string')) return { type: 'string', nullable: false };
  return UNKNOWN;
}

/** The declared type of parameter `key` of `tool`. */
export function paramType(tool: ToolSchema | undefined, key: string): ParamType {
  const props = record(record(tool?.parameters)?.properties);
  const schema = record(props?.[key]);
  return schema === null ? UNKNOWN : typeOfSchema(schema);
}

const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function infer(raw: string): string {
  const t = raw.trim();
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    // not JSON
  }
  if (t === 'True') return 'true';
  if (t === 'False') return 'false';
  if (t === 'None') return 'null';
  return JSON.stringify(raw);
}

/** The compact JSON for a parameter's text under its declared type. */
export function typedValue(raw: string, t: ParamType): string {
  const s = raw.trim();
  if (t.nullable && /^(?:null|none)$/i.test(s)) return 'null';
  switch (t.type) {
    case 'string':
      return JSON.stringify(raw);
    case 'integer':
      if (INTEGER.test(s)) return JSON.stringify(Number(s));
      return infer(raw);
    case 'number':
      if (NUMBER.test(s)) return JSON.stringify(Number(s));
      return infer(raw);
    case 'boolean':
      if (/^true$/i.test(s)) return 'true';
      if (/^false$/i.test(s)) return 'false';
      return infer(raw);
    case 'null':
      if (/^(?:null|none)$/i.test(s)) return 'null';
      return infer(raw);
    case 'object':
    case 'array':
      try {
        return JSON.stringify(JSON.parse(s));
      } catch {
        return pyLiteralToJson(s) ?? JSON.stringify(raw);
      }
    default:
      return infer(raw);
  }
}
