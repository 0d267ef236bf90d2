/**
 * The vLLM v1 EngineCore dialect (spec wire-vllm.md).
 *
 * Gateway side only: `vllmDialect` (the `Dialect` seam) plus `encodeUtility` and the wire
 * constants both ends share. The engine side (strict input decoding, output and registration
 * encoding) belongs to the mock engine: src/mock-engine/wire/vllm/.
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
export { decodeRegistration } from './registration.js';
export { decodeLogprobRows, decodeNdArray, parseDType } from './logprobs.js';
export { samplingViolation } from './sampling-rules.js';
