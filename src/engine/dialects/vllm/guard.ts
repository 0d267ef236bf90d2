/**
 * The one gate before an ADD reaches a vLLM engine. vLLM decodes `EngineCoreRequest` with a typed
 * msgspec decoder and runs `SamplingParams.__post_init__` on its input thread, outside any error
 * handling: a value of the wrong type or out of range kills that thread for good and the worker
 * goes silent (spec wire-vllm §3.9, Errata 1; request-pipeline §5.6). So every field that
 * reaches the wire is checked here at runtime against the engine's own decoder types (§3.2–§3.4,
 * vllm/sampling_params.py) and validation rules (`samplingRuleViolation`), whatever route built
 * the request. A failure throws WireFieldError naming the wire field; nothing is sent.
 */
import type { EngineRequest, SamplingSpec, StructuredConstraint } from '../../types.js';
import {
  MAX_JSON_DEPTH,
  checkBiasMap,
  checkBool,
  checkFinite,
  checkInt,
  checkJsonSchema,
  checkNonEmptyString,
  checkNullableInt,
  checkNullableTokenId,
  checkStrings,
  checkString,
  checkTokenIds,
  describe,
  fail,
  quoted,
  jsonTextDepth,
  tooDeep,
} from '../guard-checks.js';
import { packedTokenIdsOf } from '../../msgpack/packed-token-ids.js';
import { samplingRuleViolation } from './sampling-rules.js';

const SP = 'sampling_params';
const SO = `${SP}.structured_outputs`;

/**
 * vLLM's default `--max-logprobs` (ModelConfig.max_logprobs = 20): its own frontend refuses more
 * ("Requested sample logprobs of N, which is greater than max allowed: 20"); the engine does not
 * check, and a k beyond the vocabulary fails inside the sampler's top-k and kills the engine.
 */
export const MAX_LOGPROBS = 20;

/** Throws WireFieldError for an ADD the engine would choke on; returns when it is safe to send. */
export function guardEngineRequest(req: EngineRequest): void {
  if (typeof req !== 'object' || req === null) fail('request', `expected an object, got ${describe(req)}`);
  checkNonEmptyString(req.requestId, 'request_id');
  // Ids a prompt thread packed were checked against the same bound there (packed-token-ids.ts).
  if (packedTokenIdsOf(req.promptTokenIds) === null) checkTokenIds(req.promptTokenIds, 'prompt_token_ids', true);
  if (checkFinite(req.arrivalTime, 'arrival_time') < 0) fail('arrival_time', `must not be negative, got ${req.arrivalTime}`);
  if (req.cacheSalt !== null) checkNonEmptyString(req.cacheSalt, 'cache_salt');
  const rank = checkNullableInt(req.dataParallelRank, 'data_parallel_rank');
  if (rank !== null && rank < 0) fail('data_parallel_rank', `must not be negative, got ${rank}`);
  checkInt(req.priority, 'priority');
  guardSamplingSpec(req.sampling);
}

/** The `sampling_params` part of the guard: types first, then vLLM's own validation rules. */
export function guardSamplingSpec(s: SamplingSpec): void {
  if (typeof s !== 'object' || s === null) fail(SP, `expected an object, got ${describe(s)}`);
  checkFinite(s.temperature, `${SP}.temperature`);
  checkFinite(s.topP, `${SP}.top_p`);
  checkInt(s.topK, `${SP}.top_k`);
  checkFinite(s.minP, `${SP}.min_p`);
  checkFinite(s.presencePenalty, `${SP}.presence_penalty`);
  checkFinite(s.frequencyPenalty, `${SP}.frequency_penalty`);
  checkFinite(s.repetitionPenalty, `${SP}.repetition_penalty`);
  // Any int64 is a valid torch seed; the JS-safe range lies inside it. -1 means "unset".
  checkNullableInt(s.seed, `${SP}.seed`);
  checkInt(s.maxTokens, `${SP}.max_tokens`);
  checkInt(s.minTokens, `${SP}.min_tokens`);
  checkTokenIds(s.stopTokenIds, `${SP}.stop_token_ids`);
  checkNullableTokenId(s.eosTokenId, `${SP}._eos_token_id`);
  checkTokenIds(s.allStopTokenIds, `${SP}._all_stop_token_ids`);
  checkBool(s.ignoreEos, `${SP}.ignore_eos`);
  guardLogprobs(s.logprobs, 'logprobs', 'sample');
  guardLogprobs(s.promptLogprobs, 'prompt_logprobs', 'prompt');
  checkBool(s.skipSpecialTokens, `${SP}.skip_special_tokens`);
  // vLLM's frontend clamps biases to [-100, 100] (so ±Infinity is fine); only NaN has no clamp.
  if (s.logitBias !== null) checkBiasMap(s.logitBias, `${SP}.logit_bias`, false);
  // An empty list masks every token (vLLM's frontend: "allowed_token_ids is not None and empty!").
  if (s.allowedTokenIds !== null) checkTokenIds(s.allowedTokenIds, `${SP}.allowed_token_ids`, true);
  if (s.badWordsTokenIds !== null) guardBadWords(s.badWordsTokenIds);
  if (s.structured !== null) guardStructured(s.structured);

  const v = samplingRuleViolation(s);
  if (v !== null) fail(`${SP}.${v.field}`, v.message);
}

function guardLogprobs(v: number | null, key: string, what: string): void {
  const n = checkNullableInt(v, `${SP}.${key}`);
  if (n === null) return;
  // -1 (whole vocabulary) is legal for vLLM, but its reply carries empty id arrays that cannot be
  // mapped back to tokens (spec §5.5), so the gateway never asks for it.
  if (n === -1) fail(`${SP}.${key}`, `${key} = -1 (whole vocabulary) is not supported`);
  if (n > MAX_LOGPROBS) {
    fail(`${SP}.${key}`, `Requested ${what} logprobs of ${n}, which is greater than max allowed: ${MAX_LOGPROBS}`);
  }
}

/** `list[list[int]]`; an empty inner list has no last token and breaks the engine's bad-words pass. */
function guardBadWords(v: unknown): void {
  const field = `${SP}._bad_words_token_ids`;
  if (!Array.isArray(v)) fail(field, `expected a list of token id lists, got ${describe(v)}`);
  for (let i = 0; i < v.length; i++) checkTokenIds(v[i], `${field}[${i}]`, true);
}

/**
 * `StructuredOutputsParams`: exactly one constraint key, each with its declared type —
 * `json: str | dict`, `regex`/`grammar`/`structural_tag: str`, `choice: list[str]`,
 * `json_object: bool`. The seam's tagged union guarantees "exactly one" once `kind` is valid.
 */
function guardStructured(c: StructuredConstraint): void {
  if (typeof c !== 'object' || c === null) fail(SO, `expected a constraint object, got ${describe(c)}`);
  switch (c.kind) {
    case 'json_schema':
      guardJsonSchema(c.schema);
      return;
    case 'json_object':
      return;
    case 'regex':
      checkString(c.pattern, `${SO}.regex`);
      return;
    case 'grammar':
      checkString(c.grammar, `${SO}.grammar`);
      return;
    case 'choice':
      // An empty list admits no output at all.
      checkStrings(c.choices, `${SO}.choice`, true);
      return;
    case 'structural_tag':
      checkString(c.tag, `${SO}.structural_tag`);
      return;
    default:
      fail(SO, `unknown constraint kind ${quoted((c as { kind: unknown }).kind)}`);
  }
}

/**
 * The encoder sends a schema text that parses to an object as a map (like vLLM's frontend), so a
 * deeply nested text is as dangerous as a deeply nested object. The scan is cheap; JSON.parse only
 * runs to confirm when the scan already says "too deep".
 */
function guardJsonSchema(schema: unknown): void {
  const field = `${SO}.json`;
  checkJsonSchema(schema, field);
  if (typeof schema === 'string' && jsonTextDepth(schema, MAX_JSON_DEPTH) > MAX_JSON_DEPTH && parsesToObject(schema)) {
    fail(field, tooDeep());
  }
}

function parsesToObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
