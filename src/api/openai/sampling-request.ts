/** The sampling fields chat and completions share, read from an OpenAI body and validated (request-pipeline §3.1.3). */
import type { StructuredConstraint } from '../../engine/types.js';
import { invalid } from '../../pipeline/errors.js';
import type { SamplingRequest } from '../../pipeline/request.js';
import { jsonDepthProblem } from '../../util/json-depth.js';
import { jsonSchemaProblem } from '../json-schema-check.js';
import { TOOL_NAME_RULE } from '../tool-definition.js';
import { type Body, optBool, optLogitBias, optNumber, optObject, optStops, optString, optTokenIds } from './fields.js';

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

export function parseSamplingRequest(body: Body, opts: { maxTokenKeys: string[]; maxN: number }): SamplingRequest {
  let maxTokens: number | undefined;
  // Every key is checked; the first one present wins (max_completion_tokens over max_tokens).
  for (const key of opts.maxTokenKeys) {
    const v = optNumber(body, key, { min: 1, integer: true, message: `${key}: must be at least 1` });
    maxTokens ??= v;
  }
  const minTokens = optNumber(body, 'min_tokens', { min: 0, integer: true }) ?? 0;
  if (maxTokens !== undefined && minTokens > maxTokens) {
    throw invalid('min_tokens cannot exceed max_tokens/max_completion_tokens', 'min_tokens');
  }
  const topK = optNumber(body, 'top_k', { min: -1, integer: true, message: 'top_k must be -1 (disabled) or at least 1' });
  // 0 lies inside the numeric range but is not a valid value (§3.1.3): only -1 means "disabled".
  if (topK === 0) throw invalid('top_k must be -1 (disabled) or at least 1', 'top_k');
  const seed = optNumber(body, 'seed', { integer: true });
  const stream = optBool(body, 'stream') ?? false;
  const streamOptions = optObject(body, 'stream_options');
  if (streamOptions && !stream) {
    throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled", 'stream_options');
  }
  const rid = optString(body, 'rid');
  if (rid !== undefined && rid.length === 0) throw invalid('rid: must not be empty');
  return {
    maxTokens,
    minTokens,
    temperature: optNumber(body, 'temperature', { min: 0, max: 2 }),
    topP: optNumber(body, 'top_p', {
      min: 0,
      max: 1,
      minExclusive: true,
      message: 'top_p must be in (0, 1] - greater than 0.0 and at most 1.0',
    }),
    topK,
    minP: optNumber(body, 'min_p', { min: 0, max: 1 }),
    presencePenalty: optNumber(body, 'presence_penalty', { min: -2, max: 2 }),
    frequencyPenalty: optNumber(body, 'frequency_penalty', { min: -2, max: 2 }),
    // vLLM needs a strictly positive repetition penalty; 0 would kill its input thread.
    repetitionPenalty: optNumber(body, 'repetition_penalty', { min: 0, max: 2, minExclusive: true }),
    n: optNumber(body, 'n', { min: 1, max: opts.maxN, integer: true }) ?? 1,
    // vLLM clamps seeds to the i32 range.
    seed: seed === undefined ? undefined : Math.max(I32_MIN, Math.min(I32_MAX, seed)),
    stop: optStops(body),
    stopTokenIds: optTokenIds(body, 'stop_token_ids') ?? [],
    ignoreEos: optBool(body, 'ignore_eos') ?? false,
    keepStop: (optBool(body, 'no_stop_trim') ?? false) || (optBool(body, 'include_stop_str_in_output') ?? false),
    skipSpecialTokens: optBool(body, 'skip_special_tokens') ?? true,
    logitBias: optLogitBias(body),
    structured: parseStructured(body),
    stream,
    includeUsage: streamOptions ? (optBool(streamOptions, 'include_usage', 'stream_options.include_usage') ?? false) : false,
    rid,
    priority: parsePriority(body),
  };
}

/**
 * `priority` (vLLM's ChatCompletionRequest/CompletionRequest field, SGLang's /generate field): an
 * integer, lower = scheduled earlier. vLLM v1 forwards it unchecked (its InputProcessor no longer
 * refuses it under FCFS; the FCFS queue simply ignores it), and a headless engine does not tell the
 * gateway its scheduling policy, so the gateway cannot refuse it either. The range is SMG's wire
 * type (i32, crates/engine_zmq_client/src/protocol/vllm/request.rs), which also keeps it exact here.
 */
export function parsePriority(body: Body, path = 'priority'): number {
  return optNumber(body, 'priority', { min: I32_MIN, max: I32_MAX, integer: true }, path) ?? 0;
}

/** response_format / regex / ebnf / json_schema → at most one constraint (request-pipeline §10.1). */
function parseStructured(body: Body): StructuredConstraint | null {
  const found: StructuredConstraint[] = [];
  let jsonFormat = false;
  const rf = optObject(body, 'response_format');
  if (rf) {
    const type = rf.type;
    if (type === 'json_object') {
      jsonFormat = true;
      found.push({ kind: 'json_schema', schema: { type: 'object' } });
    } else if (type === 'json_schema') {
      jsonFormat = true;
      const js = optObject(rf, 'json_schema', 'response_format.json_schema');
      if (!js) throw invalid('response_format.json_schema: required when type is json_schema');
      const schema = checkJsonSchemaFormat(js, { name: 'response_format.json_schema.name', schema: 'response_format.json_schema.schema', strict: 'response_format.json_schema.strict' });
      found.push({ kind: 'json_schema', schema: schema ?? {} });
    } else if (type !== 'text' && type !== undefined) {
      throw invalid(`response_format.type: unsupported value '${String(type)}'`);
    }
  }
  const regex = optString(body, 'regex');
  const ebnf = optString(body, 'ebnf');
  const jsonSchema = optString(body, 'json_schema');
  if (jsonFormat && regex !== undefined) throw invalid('cannot use regex constraint with JSON response format', 'regex');
  if (jsonFormat && ebnf !== undefined) throw invalid('cannot use EBNF constraint with JSON response format', 'ebnf');
  if (regex !== undefined) found.push({ kind: 'regex', pattern: regex });
  if (ebnf !== undefined) found.push({ kind: 'grammar', grammar: ebnf });
  if (jsonSchema !== undefined) {
    checkJsonSchemaText(jsonSchema, 'json_schema');
    found.push({ kind: 'json_schema', schema: jsonSchema });
  }
  if (found.length > 1) {
    throw invalid('only one structured output constraint (regex, ebnf, or json_schema) can be active at a time');
  }
  return found[0] ?? null;
}

/**
 * The `json_schema` member of a JSON-schema response format (chat's nested object, Responses'
 * flat `text.format`): `name` required and tool-name shaped (OpenAI's rule), `schema` absent or a
 * JSON Schema object ajv compiles, `strict` a boolean. Returns the schema.
 */
export function checkJsonSchemaFormat(
  js: Body,
  at: { name: string; schema: string; strict: string },
): Record<string, unknown> | undefined {
  const name = js.name;
  if (name === undefined || name === null) throw invalid(`${at.name}: field is required`, at.name);
  if (typeof name !== 'string') throw invalid(`${at.name}: must be a string`, at.name);
  // SMG's text (§3.1.3).
  if (name.length === 0) throw invalid('JSON schema name cannot be empty', at.name);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw invalid(`${at.name}: must be ${TOOL_NAME_RULE}, got ${JSON.stringify(name)}`, at.name);
  const schema = js.schema;
  if (schema !== undefined && schema !== null) {
    const problem = jsonSchemaProblem(schema);
    if (problem !== null) throw invalid(`${at.schema}: ${problem}`, at.schema);
  }
  if (js.strict !== undefined && js.strict !== null && typeof js.strict !== 'boolean') throw invalid(`${at.strict}: must be a boolean`, at.strict);
  return (schema ?? undefined) as Record<string, unknown> | undefined;
}

/** SGLang's `json_schema` extension: the schema as JSON text. */
function checkJsonSchemaText(text: string, field: string): void {
  // JSON inside a string escapes the body's own depth check; the schema is walked and sent on.
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep) throw invalid(`${field}: must be a JSON Schema as JSON text: ${tooDeep}`, field);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalid(`${field}: must be a JSON Schema as JSON text: ${(err as Error).message}`, field);
  }
  const problem = jsonSchemaProblem(parsed);
  if (problem !== null) throw invalid(`${field}: ${problem}`, field);
}
