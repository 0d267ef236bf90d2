/** The sampling fields chat and completions share, read from an OpenAI body and validated (request-pipeline §3.1.3). */
import type { StructuredConstraint } from '../../engine/types.js';
import { invalid } from '../../pipeline/errors.js';
import type { SamplingRequest } from '../../pipeline/request.js';
import { type Body, optBool, optLogitBias, optNumber, optObject, optStops, optString, optTokenIds } from './fields.js';

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

export function parseSamplingRequest(body: Body, opts: { maxTokenKeys: string[]; maxN: number }): SamplingRequest {
  let maxTokens: number | undefined;
  for (const key of opts.maxTokenKeys) {
    const v = optNumber(body, key, { min: 1, integer: true, message: `${key}: must be at least 1` });
    if (v !== undefined) {
      maxTokens = v;
      break;
    }
  }
  const minTokens = optNumber(body, 'min_tokens', { min: 0, integer: true }) ?? 0;
  if (maxTokens !== undefined && minTokens > maxTokens) {
    throw invalid('min_tokens cannot exceed max_tokens/max_completion_tokens');
  }
  const topK = optNumber(body, 'top_k', { min: -1, integer: true, message: 'top_k must be -1 (disabled) or at least 1' });
  // 0 lies inside the numeric range but is not a valid value (§3.1.3): only -1 means "disabled".
  if (topK === 0) throw invalid('top_k must be -1 (disabled) or at least 1');
  const seed = optNumber(body, 'seed', { integer: true });
  const stream = optBool(body, 'stream') ?? false;
  const streamOptions = optObject(body, 'stream_options');
  if (streamOptions && !stream) {
    throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled");
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
    includeUsage: streamOptions ? (optBool(streamOptions, 'include_usage') ?? false) : false,
    rid,
  };
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
      const js = optObject(rf, 'json_schema');
      if (!js) throw invalid('response_format.json_schema: required when type is json_schema');
      const name = optString(js, 'name');
      if (name !== undefined && name.length === 0) throw invalid('JSON schema name cannot be empty');
      const schema = js.schema;
      found.push({ kind: 'json_schema', schema: (schema as Record<string, unknown> | undefined) ?? {} });
    } else if (type !== 'text' && type !== undefined) {
      throw invalid(`response_format.type: unsupported value '${String(type)}'`);
    }
  }
  const regex = optString(body, 'regex');
  const ebnf = optString(body, 'ebnf');
  const jsonSchema = optString(body, 'json_schema');
  if (jsonFormat && regex !== undefined) throw invalid('cannot use regex constraint with JSON response format');
  if (jsonFormat && ebnf !== undefined) throw invalid('cannot use EBNF constraint with JSON response format');
  if (regex !== undefined) found.push({ kind: 'regex', pattern: regex });
  if (ebnf !== undefined) found.push({ kind: 'grammar', grammar: ebnf });
  if (jsonSchema !== undefined) found.push({ kind: 'json_schema', schema: jsonSchema });
  if (found.length > 1) {
    throw invalid('only one structured output constraint (regex, ebnf, or json_schema) can be active at a time');
  }
  return found[0] ?? null;
}
