/**
 * Engine side: decode a `sampling_params` map the way vLLM's engine does — msgspec strict typing
 * per key, then `SamplingParams.__post_init__` (normalisation + `_verify_args`). Unknown keys are
 * ignored, missing ones take vLLM's defaults. Throws StrictDecodeError on what vLLM would refuse.
 */
import type { TypedValue } from '../typed-reader.js';
import { msgspecTypeName, toPlain } from '../typed-reader.js';
import { GREEDY_EPSILON, MIN_TEMPERATURE, samplingViolation } from '../../../engine/dialects/vllm/sampling-rules.js';
import {
  expectArray,
  expectBool,
  expectFloat,
  expectInt,
  expectIntArray,
  expectMapEntries,
  expectStr,
  expectStrArray,
  fail,
  nullable,
  structFields,
} from './strict.js';

export interface ParsedStructuredOutputs {
  json: string | Record<string, unknown> | null;
  regex: string | null;
  choice: string[] | null;
  grammar: string | null;
  jsonObject: boolean | null;
  structuralTag: string | null;
  disableAnyWhitespace: boolean;
  disableAdditionalProperties: boolean;
  whitespacePattern: string | null;
  backend: string | null;
}

export interface ParsedRepetitionDetection {
  maxPatternSize: number;
  minPatternSize: number;
  minCount: number;
}

/** SamplingParams after decode and `__post_init__`, defaults filled in. */
export interface ParsedSamplingParams {
  n: number;
  presencePenalty: number;
  frequencyPenalty: number;
  repetitionPenalty: number;
  temperature: number;
  topP: number;
  /** 0 or -1 = disabled. */
  topK: number;
  minP: number;
  seed: number | null;
  stop: string[];
  stopTokenIds: number[];
  ignoreEos: boolean;
  /** null = up to max_model_len. */
  maxTokens: number | null;
  minTokens: number;
  logprobs: number | null;
  promptLogprobs: number | null;
  logprobTokenIds: number[] | null;
  detokenize: boolean;
  skipSpecialTokens: boolean;
  includeStopStrInOutput: boolean;
  outputKind: number;
  streamInterval: number | null;
  eosTokenId: number | null;
  allStopTokenIds: number[];
  structuredOutputs: ParsedStructuredOutputs | null;
  logitBias: Map<number, number> | null;
  allowedTokenIds: number[] | null;
  extraArgs: Record<string, unknown> | null;
  badWords: string[];
  badWordsTokenIds: number[][] | null;
  skipReadingPrefixCache: boolean;
  thinkingTokenBudget: number | null;
  repetitionDetection: ParsedRepetitionDetection | null;
  /** Keys present on the wire, in wire order (lets tests assert what a frontend sent). */
  wireKeys: string[];
}

const OUTPUT_KINDS = new Set([0, 1, 2]);

export function decodeSamplingParams(v: TypedValue, path: string): ParsedSamplingParams {
  const f = structFields(v, path);
  const at = (k: string): string => `${path}.${k}`;
  const int = (k: string, dflt: number): number => {
    const x = f.get(k);
    return x === undefined ? dflt : expectInt(x, at(k));
  };
  const optInt = (k: string, dflt: number | null = null): number | null => {
    const x = f.get(k);
    return x === undefined ? dflt : nullable(x, at(k), expectInt);
  };
  const float = (k: string, dflt: number): number => {
    const x = f.get(k);
    return x === undefined ? dflt : expectFloat(x, at(k));
  };
  const bool = (k: string, dflt: boolean): boolean => {
    const x = f.get(k);
    return x === undefined ? dflt : expectBool(x, at(k));
  };
  const optIntList = (k: string): number[] | null => nullable(f.get(k), at(k), expectIntArray);

  const outputKind = int('output_kind', 0);
  if (!OUTPUT_KINDS.has(outputKind)) fail(`Invalid enum value ${outputKind} - at \`${at('output_kind')}\``);
  // `thinking_token_budget` has a before-validator: -1 means unlimited, other negatives fail.
  let thinking = optInt('thinking_token_budget');
  if (thinking === -1) thinking = null;
  if (thinking !== null && thinking < 0) fail('`thinking_token_budget` must be a non-negative integer or -1 for unlimited.');

  const allStopRaw = f.get('_all_stop_token_ids');
  const p: ParsedSamplingParams = {
    n: int('n', 1),
    presencePenalty: float('presence_penalty', 0),
    frequencyPenalty: float('frequency_penalty', 0),
    repetitionPenalty: float('repetition_penalty', 1),
    temperature: float('temperature', 1),
    topP: float('top_p', 1),
    topK: int('top_k', 0),
    minP: float('min_p', 0),
    seed: optInt('seed'),
    stop: decodeStop(f.get('stop'), at('stop')),
    stopTokenIds: optIntList('stop_token_ids') ?? [],
    ignoreEos: bool('ignore_eos', false),
    maxTokens: optInt('max_tokens', 16),
    minTokens: int('min_tokens', 0),
    logprobs: optInt('logprobs'),
    promptLogprobs: optInt('prompt_logprobs'),
    logprobTokenIds: optIntList('logprob_token_ids'),
    detokenize: bool('detokenize', true),
    skipSpecialTokens: bool('skip_special_tokens', true),
    includeStopStrInOutput: bool('include_stop_str_in_output', false),
    outputKind,
    streamInterval: optInt('stream_interval'),
    eosTokenId: optInt('_eos_token_id'),
    // A set[int]: not optional, so nil is a type error.
    allStopTokenIds: allStopRaw === undefined ? [] : expectIntArray(allStopRaw, at('_all_stop_token_ids')),
    structuredOutputs: nullable(f.get('structured_outputs'), at('structured_outputs'), decodeStructured),
    logitBias: nullable(f.get('logit_bias'), at('logit_bias'), decodeLogitBias),
    allowedTokenIds: optIntList('allowed_token_ids'),
    extraArgs: nullable(f.get('extra_args'), at('extra_args'), decodeExtraArgs),
    badWords: nullable(f.get('bad_words'), at('bad_words'), expectStrArray) ?? [],
    badWordsTokenIds: nullable(f.get('_bad_words_token_ids'), at('_bad_words_token_ids'), (x, p2) =>
      expectArray(x, p2).map((row, i) => expectIntArray(row, `${p2}[${i}]`)),
    ),
    skipReadingPrefixCache: false,
    thinkingTokenBudget: thinking,
    repetitionDetection: nullable(f.get('repetition_detection'), at('repetition_detection'), decodeRepetition),
    wireKeys: [...f.keys()],
  };
  // Type-check keys this engine does not act on, so a frontend bug still surfaces.
  int('output_text_buffer_length', 0);
  int('routed_experts_prompt_start', 0);
  optInt('prompt_logprob_start');
  optIntList('prompt_logprob_token_ids');
  optIntList('trace_decode_token_ids');
  bool('flat_logprobs', false);
  bool('spaces_between_special_tokens', true);
  bool('skip_clone', false);
  const skipPrefix = f.get('skip_reading_prefix_cache');
  const skipPrefixValue = nullable(skipPrefix, at('skip_reading_prefix_cache'), expectBool);

  postInit(p);
  p.skipReadingPrefixCache = skipPrefixValue ?? p.promptLogprobs !== null;
  return p;
}

/** `SamplingParams.__post_init__`: normalise, then `_verify_args` (throws like the engine). */
function postInit(p: ParsedSamplingParams): void {
  if (p.temperature > 0 && p.temperature < MIN_TEMPERATURE) p.temperature = MIN_TEMPERATURE;
  if (p.seed === -1) p.seed = null;
  p.stopTokenIds = [...new Set(p.stopTokenIds)];
  p.badWords = [...new Set(p.badWords)];
  const violation = samplingViolation(p);
  if (violation !== null) fail(violation);
  if (p.stop.some((s) => s.length === 0)) fail('stop cannot contain an empty string.');
  if (p.stop.length > 0 && !p.detokenize) fail('stop strings are only supported when detokenize is True. Set detokenize=True to use stop.');
  if (p.badWords.some((s) => s.length === 0)) fail(`bad_words cannot contain an empty string. Got bad_words=${JSON.stringify(p.badWords)}`);
  if (p.temperature < GREEDY_EPSILON) {
    p.topP = 1;
    p.topK = 0;
    p.minP = 0;
  }
  const all = new Set(p.allStopTokenIds);
  for (const id of p.stopTokenIds) all.add(id);
  p.allStopTokenIds = [...all];
}

/** `str | list[str] | None` → list. */
function decodeStop(v: TypedValue | undefined, path: string): string[] {
  if (v === undefined || v.t === 'nil') return [];
  if (v.t === 'str') return [v.v];
  if (v.t === 'array') return expectStrArray(v, path);
  fail(`Expected \`str | array | null\`, got \`${v.t}\` - at \`${path}\``);
}

/** `dict[int, float]`: keys must be msgpack ints (str keys are a decode error). */
function decodeLogitBias(v: TypedValue, path: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, value] of expectMapEntries(v, path)) {
    if (k.t !== 'int') fail(`Expected \`int\`, got \`${msgspecTypeName(k)}\` - at \`key\` in \`${path}\``);
    const id = expectInt(k, path);
    out.set(id, expectFloat(value, `${path}[${id}]`));
  }
  return out;
}

function decodeExtraArgs(v: TypedValue, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, item] of structFields(v, path)) {
    Object.defineProperty(out, k, { value: toPlain(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** StructuredOutputsParams (a dataclass): typed fields, then exactly one constraint. */
function decodeStructured(v: TypedValue, path: string): ParsedStructuredOutputs {
  const f = structFields(v, path);
  const at = (k: string): string => `${path}.${k}`;
  const optStr = (k: string): string | null => nullable(f.get(k), at(k), expectStr);
  const jsonRaw = f.get('json');
  let json: string | Record<string, unknown> | null = null;
  if (jsonRaw !== undefined && jsonRaw.t !== 'nil') {
    if (jsonRaw.t === 'str') json = jsonRaw.v;
    else if (jsonRaw.t === 'map') json = toPlain(jsonRaw) as Record<string, unknown>;
    else fail(`Expected \`str | object | null\`, got \`${jsonRaw.t}\` - at \`${at('json')}\``);
  }
  const boolOr = (k: string, dflt: boolean): boolean => {
    const x = f.get(k);
    return x === undefined ? dflt : expectBool(x, at(k));
  };
  const s: ParsedStructuredOutputs = {
    json,
    regex: optStr('regex'),
    choice: nullable(f.get('choice'), at('choice'), expectStrArray),
    grammar: optStr('grammar'),
    jsonObject: nullable(f.get('json_object'), at('json_object'), expectBool),
    structuralTag: optStr('structural_tag'),
    disableAnyWhitespace: boolOr('disable_any_whitespace', false),
    disableAdditionalProperties: boolOr('disable_additional_properties', false),
    whitespacePattern: optStr('whitespace_pattern'),
    backend: optStr('_backend'),
  };
  const count = [s.json, s.regex, s.choice, s.grammar, s.jsonObject, s.structuralTag].filter((x) => x !== null).length;
  if (count > 1) fail('You can only use one kind of structured outputs constraint but multiple are specified');
  if (count < 1) fail('You must use one kind of structured outputs constraint but none are specified');
  return s;
}

function decodeRepetition(v: TypedValue, path: string): ParsedRepetitionDetection {
  const f = structFields(v, path);
  const get = (k: string): number => {
    const x = f.get(k);
    return x === undefined ? 0 : expectInt(x, `${path}.${k}`);
  };
  const r = { maxPatternSize: get('max_pattern_size'), minPatternSize: get('min_pattern_size'), minCount: get('min_count') };
  if (r.maxPatternSize < 0 || r.minPatternSize < 0 || r.minPatternSize > r.maxPatternSize) {
    fail('max_pattern_size, min_pattern_size must be >=0, with min_pattern_size <= max_pattern_size.');
  }
  if (r.maxPatternSize > 0 && r.minCount < 2) fail('min_count must be >= 2 to detect repetitive patterns in engine output.');
  return r;
}
