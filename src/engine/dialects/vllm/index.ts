/**
 * The vLLM v1 EngineCore dialect (spec wire-vllm.md).
 *
 * Gateway side: `vllmDialect` (the `Dialect` seam) plus `encodeUtility`.
 * Engine side (fake engines): `decodeEngineInput`, `encodeOutputs`, `encodeRegistration`,
 * `ENGINE_CORE_DEAD`.
 */
import type { Dialect } from '../../types.js';
import { decodeOutput } from './output.js';
import { decodeRegistration } from './registration.js';
import { encodeAbort, encodeAdd, encodeStartWave } from './request.js';

export const vllmDialect: Dialect = {
  runtime: 'vllm',
  encodeAdd,
  encodeAbort,
  // Only lockstep (MoE, DP>1) groups act on it; the caller decides when to send (spec §3.6).
  encodeStartWave,
  decodeRegistration,
  decodeOutput,
};

export {
  ENGINE_CORE_DEAD,
  EngineCoreEventType,
  FinishReasonCode,
  RequestType,
  finishReasonFromCode,
  isEngineCoreDead,
} from './constants.js';
export { encodeAbort, encodeAdd, encodeStartWave, encodeUtility } from './request.js';
export { checkSamplingSpec } from './sampling.js';
export { MAX_LOGPROBS, guardEngineRequest, guardSamplingSpec } from './guard.js';
export { WireFieldError } from '../guard-checks.js';
export { decodeOutput } from './output.js';
export { decodeRegistration, encodeRegistration } from './registration.js';
export type { EncodeRegistrationOptions, VllmReadyResponse } from './registration.js';
export { decodeAddPayload, decodeEngineInput } from './request-decode.js';
export type { EngineInput, ParsedAddRequest } from './request-decode.js';
export type { ParsedRepetitionDetection, ParsedSamplingParams, ParsedStructuredOutputs } from './sampling-decode.js';
export { encodeOutputs } from './output-encode.js';
export type {
  EncodeOutputsOptions,
  WireEvent,
  WireOutput,
  WireOutputs,
  WirePrefillStats,
  WirePrefixCacheStats,
  WireSchedulerStats,
  WireUtilityOutput,
} from './output-encode.js';
export { decodeLogprobRows, decodeNdArray, parseDType, writeLogprobRows, writeNdArray } from './logprobs.js';
export { samplingViolation } from './sampling-rules.js';
