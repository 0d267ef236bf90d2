/**
 * The engine side of the vLLM v1 EngineCore wire (spec wire-vllm.md), as the mock engine speaks
 * it: msgspec-strict input decoding with the real engine's consequences, output and registration
 * encoding, logprob array writers. The gateway side is src/engine/dialects/vllm/; each file here
 * pairs with one there (request-decode ↔ request, output-encode ↔ output, registration-encode ↔
 * registration, logprobs-write ↔ logprobs).
 */
export { encodeRegistration } from './registration-encode.js';
export type { EncodeRegistrationOptions, VllmReadyResponse } from './registration-encode.js';
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
export { writeLogprobRows, writeNdArray, type DTypeSpelling } from './logprobs-write.js';
