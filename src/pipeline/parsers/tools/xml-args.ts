/**
 * Arguments written as key/value pairs (GLM `<arg_key>`/`<arg_value>`, MiniMax and Step-3
 * `<parameter name="K">V</parameter>`, Kimi-K3 `<|open|>argument key="K" type="T"<|sep|>V…`):
 * the parser builds the JSON object itself, one member per pair, in the order the model wrote
 * them. Values are raw text; their JSON type comes from the tool's parameter schema:
 * - `string` → the text verbatim (no trimming, no unescaping; the chat templates render string
 *   values raw, so this is the exact inverse);
 * - `integer`, `number`, `boolean`, `null`, `object`, `array` → parsed (surrounding whitespace
 *   ignored; `True`/`False`/`None` accepted, as SMG's coercion does);
 * - no usable schema, or a value that fits none of its types → JSON if the text is one JSON
 *   value, else the text as a string.
 * A string-typed value is streamed as it arrives; other values are written when complete.
 */
import type { ToolSchema } from './types.js';
import { JsonStringEscaper, compactJsonText } from './json-compact-writer.js';
import { canonicalNumber } from './json-stream.js';

/** How a value is written: streamed as a JSON string, or typed once complete (by these types). */
export type ValueTyping = { stream: true } | { stream: false; types: readonly string[] };

const STREAM_STRING: ValueTyping = { stream: true };
const UNTYPED: ValueTyping = { stream: false, types: [] };

function typesOf(schema: unknown, into: Set<string>): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  const t = s.type;
  if (typeof t === 'string') into.add(t);
  else if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') into.add(x);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts)) for (const a of alts) typesOf(a, into);
  }
}

/** Per-parameter typing of one tool, looked up by key (memoized per call). */
export class ParamTypes {
  private readonly props: Record<string, unknown> | null;
  private readonly cache = new Map<string, ValueTyping>();

  constructor(tool: ToolSchema | undefined) {
    const p = tool?.parameters?.properties;
    this.props = p && typeof p === 'object' ? (p as Record<string, unknown>) : null;
  }

  typing(key: string): ValueTyping {
    if (!this.props || !Object.prototype.hasOwnProperty.call(this.props, key)) return UNTYPED;
    let t = this.cache.get(key);
    if (!t) {
      const set = new Set<string>();
      typesOf(this.props[key], set);
      t = set.size === 1 && set.has('string') ? STREAM_STRING : { stream: false, types: [...set] };
      this.cache.set(key, t);
    }
    return t;
  }
}

/** Compact JSON for a complete raw value, typed by `types` (see the module comment). */
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
        if (/^-?\d+$/.test(t)) json = canonicalNumber(t) ?? String(Number(t));
        break;
      case 'number':
        json = canonicalNumber(t);
        break;
      case 'object':
      case 'array': {
        const c = compactJsonText(t);
        if (c !== null && c[0] === (type === 'object' ? '{' : '[')) json = c;
        break;
      }
    }
    if (json !== null) return json;
  }
  if (types.includes('string')) return JSON.stringify(raw);
  return compactJsonText(t) ?? JSON.stringify(raw);
}

/**
 * Writes one call's argument object as compact JSON pieces. The first occurrence of a key wins
 * (`isRepeat`); callers skip the values of repeats.
 */
export class ArgsObjectWriter {
  private readonly keys = new Set<string>();
  private members = 0;
  private readonly escaper = new JsonStringEscaper();
  private stringOpen = false;

  open(): string {
    return '{';
  }

  isRepeat(key: string): boolean {
    return this.keys.has(key);
  }

  /** A complete member. */
  member(key: string, json: string): string {
    return this.prefix(key) + json;
  }

  /** Starts a streamed string member. */
  beginString(key: string): string {
    this.stringOpen = true;
    return this.prefix(key) + '"';
  }

  stringChunk(text: string): string {
    return this.escaper.push(text);
  }

  endString(): string {
    this.stringOpen = false;
    return this.escaper.end() + '"';
  }

  /** Closes the object (and a string member left open by a truncated stream). */
  close(): string {
    return (this.stringOpen ? this.endString() : '') + '}';
  }

  private prefix(key: string): string {
    this.keys.add(key);
    return (this.members++ > 0 ? ',' : '') + JSON.stringify(key) + ':';
  }
}
