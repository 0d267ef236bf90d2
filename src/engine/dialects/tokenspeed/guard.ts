/**
 * The one gate before an ADD reaches a TokenSpeed engine. TokenSpeed decodes the tagged
 * `TokenizedGenerateReqInput` msgspec-strictly and silently drops a message with any type
 * mismatch (the stream then hangs), answers a range violation with a message-less `abort` row,
 * and does not check some values at all that then crash it (§4.1, §4.8, §13.6; request-pipeline
 * §5.6). So every field that reaches the wire is checked here at runtime, whatever route built the
 * request, in two steps:
 *
 * 1. `guardTokenSpeedRequest`: the seam values (`EngineRequest`) against the slot types they
 *    become, plus what the engine accepts but mis-handles (non-finite floats, seeds outside
 *    int64, a negative temperature the greedy collapse would hide, prompt logprobs).
 * 2. `guardTokenSpeedSampling`: the normalized 29 slots against the engine's own validation table
 *    (`samplingRangeViolation`, shared with the fake engine's admission).
 *
 * A failure throws WireFieldError naming the wire field (`sampling_params.top_k`); nothing is sent.
 */
import type { EngineRequest, SamplingSpec, StructuredConstraint } from '../../types.js';
import {
  WireFieldError,
  checkBiasMap,
  checkBool,
  checkFinite,
  checkInt,
  checkJsonSchema,
  checkNonEmptyString,
  checkNullableInt,
  checkString,
  checkTokenIds,
  describe,
  fail,
  quoted,
} from '../guard-checks.js';
import { packedTokenIdsOf } from '../../msgpack/packed-token-ids.js';
import type { TsSamplingParams } from './sampling-layout.js';
import { samplingRangeViolation } from './sampling-rules.js';

/** SMG's rejection text (request-pipeline §5.5). */
export const PROMPT_LOGPROBS_UNSUPPORTED = 'prompt logprobs are not supported over the TokenSpeed ZMQ backend';

const SP = 'sampling_params';

/** Seeds go into an int64 buffer (§4.6); from JS only the safe, non-negative part is sent. */
const SEED_RANGE_TEXT = 'must be an integer in [0, 2^53)';

/** Step 1: the request as the seam carries it. Throws WireFieldError; returns when safe to map. */
export function guardTokenSpeedRequest(req: EngineRequest): void {
  if (typeof req !== 'object' || req === null) fail('request', `expected an object, got ${describe(req)}`);
  // A nil rid is dropped (§4.2); an empty one would collide across requests in the abort memory.
  checkNonEmptyString(req.requestId, 'rid');
  // Nil or empty input_ids is unsupported: the engine measures its length (§4.2).
  // Ids a prompt thread packed were checked against the same bound there (packed-token-ids.ts).
  if (packedTokenIdsOf(req.promptTokenIds) === null) checkTokenIds(req.promptTokenIds, 'input_ids', true);
  if (req.stream !== undefined) checkBool(req.stream, 'stream');
  guardSeamSampling(req.sampling);
}

/** Step 2: the normalized slots, against the engine's own admission table (§4.3, §4.8). */
export function guardTokenSpeedSampling(sp: TsSamplingParams): void {
  const v = samplingRangeViolation(sp, null);
  if (v !== null) fail(`${SP}.${v.field}`, v.message);
}

function guardSeamSampling(s: SamplingSpec): void {
  if (typeof s !== 'object' || s === null) fail(SP, `expected an object, got ${describe(s)}`);
  // The wire has no prompt logprobs (§4.5); refuse in SMG's words rather than silently omit them.
  // (top_logprobs > 1 is refused by the handlers, which know what the client asked for.)
  if (s.promptLogprobs !== null) {
    throw new WireFieldError(`${SP}.prompt_logprobs`, PROMPT_LOGPROBS_UNSUPPORTED, PROMPT_LOGPROBS_UNSUPPORTED);
  }
  checkInt(s.maxTokens, `${SP}.max_new_tokens`);
  checkTokenIds(s.stopTokenIds, `${SP}.stop_token_ids`);
  // Float slots: the engine takes NaN and ±Infinity and then samples garbage or divides by them.
  checkFinite(s.temperature, `${SP}.temperature`);
  // Checked before normalization: the greedy collapse would turn -1 into a valid greedy request.
  if (s.temperature < 0) fail(`${SP}.temperature`, `temperature must be non-negative, got ${s.temperature}`);
  checkFinite(s.topP, `${SP}.top_p`);
  checkInt(s.topK, `${SP}.top_k`);
  checkFinite(s.minP, `${SP}.min_p`);
  checkFinite(s.frequencyPenalty, `${SP}.frequency_penalty`);
  checkFinite(s.presencePenalty, `${SP}.presence_penalty`);
  checkFinite(s.repetitionPenalty, `${SP}.repetition_penalty`);
  checkInt(s.minTokens, `${SP}.min_new_tokens`);
  if (s.structured !== null) guardStructured(s.structured);
  checkBool(s.ignoreEos, `${SP}.ignore_eos`);
  checkBool(s.skipSpecialTokens, `${SP}.skip_special_tokens`);
  // No clamp on this wire (unlike vLLM's frontend), so an infinite bias would reach the sampler.
  if (s.logitBias !== null) checkBiasMap(s.logitBias, `${SP}.logit_bias`, true);
  // A seed ≥ 2^63 overflows the sampler's int64 buffer (§4.6, §13.6); negatives are not seeds here.
  if (s.seed !== null && !(Number.isSafeInteger(s.seed) && s.seed >= 0)) {
    fail(`${SP}.seed`, `seed ${SEED_RANGE_TEXT}, got ${typeof s.seed === 'number' ? s.seed : describe(s.seed)}`);
  }
  // Only the switch `return_logprob` travels (slot 24 stays nil), but the count must be sane.
  const logprobs = checkNullableInt(s.logprobs, 'return_logprob');
  if (logprobs !== null && logprobs < 0) fail('return_logprob', `logprobs must be non-negative, got ${logprobs}`);
  // These have no slot on this wire: refusing beats silently sampling without the constraint.
  if (s.allowedTokenIds !== null) fail(`${SP}.allowed_token_ids`, 'not supported over the TokenSpeed ZMQ backend');
  if (s.badWordsTokenIds !== null) fail(`${SP}.bad_words`, 'not supported over the TokenSpeed ZMQ backend');
}

/**
 * The constraint becomes one grammar string slot (§4.4): json_object and choice are translated
 * (schema text, regex alternation), so their inputs must be what those translations can take.
 */
function guardStructured(c: StructuredConstraint): void {
  if (typeof c !== 'object' || c === null) fail(SP, `expected a structured-output constraint, got ${describe(c)}`);
  switch (c.kind) {
    case 'json_schema':
      // An object is sent as its JSON text: it must be plain JSON (no cycles, BigInt, NaN …).
      checkJsonSchema(c.schema, `${SP}.json_schema`);
      return;
    case 'json_object':
      return;
    case 'regex':
      checkString(c.pattern, `${SP}.regex`);
      return;
    case 'grammar':
      checkString(c.grammar, `${SP}.ebnf`);
      return;
    case 'choice':
      guardChoices(c.choices);
      return;
    case 'structural_tag':
      checkString(c.tag, `${SP}.structural_tag`);
      return;
    default:
      fail(SP, `unknown structured-output constraint kind ${quoted((c as { kind: unknown }).kind)}`);
  }
}

/** Choices are sent as a regex alternation; an empty list admits no output at all. */
function guardChoices(choices: unknown): void {
  const field = `${SP}.regex`;
  if (!Array.isArray(choices)) fail(field, `expected a list of choice strings, got ${describe(choices)}`);
  if (choices.length === 0) fail(field, 'the choice list must not be empty');
  for (let i = 0; i < choices.length; i++) {
    if (typeof choices[i] !== 'string') fail(field, `choice ${i}: expected a string, got ${describe(choices[i])}`);
  }
}
