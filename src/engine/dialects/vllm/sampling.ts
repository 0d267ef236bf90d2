/**
 * Gateway side: SamplingSpec → vLLM `SamplingParams` map (spec wire-vllm §3.3, §3.4).
 *
 * Written like vLLM's own frontend (msgspec `omit_defaults`): keys in declaration order, a key only
 * when its value differs from the engine default, every float as float64 — except `max_tokens`,
 * which is always sent because the engine default is 16, not "unlimited". The header is the
 * smallest that fits (R1 is `82`), not msgspec's map16: any msgpack decoder accepts both.
 */
import type { SamplingSpec, StructuredConstraint } from '../../types.js';
import { encodeStr, type MsgpackWriter } from '../../msgpack/writer.js';
import { guardSamplingSpec } from './guard.js';

// Keys are encoded once; the hot path only copies their bytes.
const K = {
  presencePenalty: encodeStr('presence_penalty'),
  frequencyPenalty: encodeStr('frequency_penalty'),
  repetitionPenalty: encodeStr('repetition_penalty'),
  temperature: encodeStr('temperature'),
  topP: encodeStr('top_p'),
  topK: encodeStr('top_k'),
  minP: encodeStr('min_p'),
  seed: encodeStr('seed'),
  stopTokenIds: encodeStr('stop_token_ids'),
  ignoreEos: encodeStr('ignore_eos'),
  maxTokens: encodeStr('max_tokens'),
  minTokens: encodeStr('min_tokens'),
  logprobs: encodeStr('logprobs'),
  promptLogprobs: encodeStr('prompt_logprobs'),
  skipSpecialTokens: encodeStr('skip_special_tokens'),
  eosTokenId: encodeStr('_eos_token_id'),
  allStopTokenIds: encodeStr('_all_stop_token_ids'),
  structuredOutputs: encodeStr('structured_outputs'),
  logitBias: encodeStr('logit_bias'),
  allowedTokenIds: encodeStr('allowed_token_ids'),
  badWordsTokenIds: encodeStr('_bad_words_token_ids'),
  backend: encodeStr('_backend'),
};

const NO_IDS: readonly number[] = [];

/** vLLM's frontend clamps biases to this range before they reach the engine. */
const LOGIT_BIAS_LIMIT = 100;

/**
 * Throws WireEncodeError when the engine would reject `s` (its input thread would die). Kept as
 * the older name of the guard's sampling half (guard.ts is the one place these rules live).
 */
export const checkSamplingSpec: (s: SamplingSpec) => void = guardSamplingSpec;

/** Writes the sampling map for `s`; the caller has passed it through the guard (guard.ts). */
export function writeSamplingParams(w: MsgpackWriter, s: SamplingSpec): void {
  const mark = w.beginContainer();
  let n = 0;
  if (s.presencePenalty !== 0) {
    w.raw(K.presencePenalty).float64(s.presencePenalty);
    n++;
  }
  if (s.frequencyPenalty !== 0) {
    w.raw(K.frequencyPenalty).float64(s.frequencyPenalty);
    n++;
  }
  if (s.repetitionPenalty !== 1) {
    w.raw(K.repetitionPenalty).float64(s.repetitionPenalty);
    n++;
  }
  if (s.temperature !== 1) {
    w.raw(K.temperature).float64(s.temperature);
    n++;
  }
  if (s.topP !== 1) {
    w.raw(K.topP).float64(s.topP);
    n++;
  }
  // 0 and -1 both mean "disabled"; 0 is the default, so neither is sent.
  if (s.topK > 0) {
    w.raw(K.topK).int(s.topK);
    n++;
  }
  if (s.minP !== 0) {
    w.raw(K.minP).float64(s.minP);
    n++;
  }
  if (s.seed !== null && s.seed !== -1) {
    w.raw(K.seed).int(s.seed);
    n++;
  }

  const eos = s.ignoreEos ? null : s.eosTokenId;
  // Errata 2: the engine stops on EOS even with ignore_eos, so EOS ids must not travel at all.
  const dropId = s.ignoreEos ? s.eosTokenId : null;
  const stopIds = dropId === null ? s.stopTokenIds : s.stopTokenIds.filter((id) => id !== dropId);
  if (stopIds.length > 0) {
    w.raw(K.stopTokenIds).uintArray(stopIds);
    n++;
  }
  // Kept for older v1 engines that still consult it; harmless for current ones.
  if (s.ignoreEos) {
    w.raw(K.ignoreEos).bool(true);
    n++;
  }
  w.raw(K.maxTokens).int(s.maxTokens);
  n++;
  if (s.minTokens !== 0) {
    w.raw(K.minTokens).int(s.minTokens);
    n++;
  }
  if (s.logprobs !== null) {
    w.raw(K.logprobs).int(s.logprobs);
    n++;
  }
  if (s.promptLogprobs !== null) {
    w.raw(K.promptLogprobs).int(s.promptLogprobs);
    n++;
  }
  if (!s.skipSpecialTokens) {
    w.raw(K.skipSpecialTokens).bool(false);
    n++;
  }
  if (eos !== null) {
    w.raw(K.eosTokenId).int(eos);
    n++;
  }

  const allStop = allStopIds(s, stopIds, eos, dropId);
  if (allStop.length > 0) {
    w.raw(K.allStopTokenIds).uintArray(allStop);
    n++;
  }
  if (s.structured !== null) {
    w.raw(K.structuredOutputs);
    writeStructuredOutputs(w, s.structured);
    n++;
  }
  if (s.logitBias !== null && s.logitBias.size > 0) {
    w.raw(K.logitBias);
    writeLogitBias(w, s.logitBias);
    n++;
  }
  if (s.allowedTokenIds !== null) {
    w.raw(K.allowedTokenIds).uintArray(s.allowedTokenIds);
    n++;
  }
  if (s.badWordsTokenIds !== null) {
    w.raw(K.badWordsTokenIds).arrayHeader(s.badWordsTokenIds.length);
    for (const ids of s.badWordsTokenIds) w.uintArray(ids);
    n++;
  }
  w.endMap(mark, n);
}

/**
 * `_all_stop_token_ids` (masked until min_tokens): the caller's set plus stop ids and EOS, in
 * first-seen order without duplicates. Under ignore_eos the EOS id is left out (Errata 2).
 */
function allStopIds(s: SamplingSpec, stopIds: readonly number[], eos: number | null, dropId: number | null): readonly number[] {
  if (s.allStopTokenIds.length === 0 && stopIds.length === 0 && eos === null) return NO_IDS;
  const seen = new Set<number>();
  const out: number[] = [];
  const add = (id: number): void => {
    if (id === dropId || seen.has(id)) return;
    seen.add(id);
    out.push(id);
  };
  for (const id of s.allStopTokenIds) add(id);
  for (const id of stopIds) add(id);
  if (eos !== null) add(eos);
  return out;
}

/** `logit_bias` needs msgpack INT keys (str keys are a decode error in the engine). */
function writeLogitBias(w: MsgpackWriter, bias: ReadonlyMap<number, number>): void {
  w.mapHeader(bias.size);
  for (const [id, value] of bias) {
    w.int(id).float64(Math.min(LOGIT_BIAS_LIMIT, Math.max(-LOGIT_BIAS_LIMIT, value)));
  }
}

/**
 * `structured_outputs`: the one constraint key plus `_backend`, which vLLM's frontend would have
 * filled in during validation (the engine compiles with it). Like SMG: guidance, except xgrammar
 * for structural tags. Other options keep their defaults and are omitted.
 */
function writeStructuredOutputs(w: MsgpackWriter, c: StructuredConstraint): void {
  w.mapHeader(2);
  switch (c.kind) {
    case 'json_schema':
      w.str('json');
      writeJsonSchema(w, c.schema);
      break;
    case 'json_object':
      w.str('json_object').bool(true);
      break;
    case 'regex':
      w.str('regex').str(c.pattern);
      break;
    case 'grammar':
      w.str('grammar').str(c.grammar);
      break;
    case 'choice':
      w.str('choice').strArray(c.choices);
      break;
    case 'structural_tag':
      w.str('structural_tag').str(c.tag);
      break;
  }
  w.raw(K.backend).str(c.kind === 'structural_tag' ? 'xgrammar' : 'guidance');
}

/**
 * The engine types `json` as `str | dict`: a schema that parses to a JSON object goes as a map,
 * anything else as the original string (an array there would be a decode error in the engine).
 */
function writeJsonSchema(w: MsgpackWriter, schema: string | Record<string, unknown>): void {
  if (typeof schema !== 'string') {
    w.value(schema);
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(schema);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) w.value(parsed);
  else w.str(schema);
}
