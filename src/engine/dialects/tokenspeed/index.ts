/**
 * TokenSpeed headless wire dialect (spec wire-tokenspeed.md).
 *
 * Gateway side only: `tokenspeedDialect` plus its pieces and the wire constants both ends share.
 * The engine side (strict input decoding with the engine's finalization, admission checks,
 * output-batch, registration and identity encoding) belongs to the mock engine:
 * src/mock-engine/wire/tokenspeed/.
 */
export { tokenspeedDialect } from './dialect.js';
export {
  encodeTokenSpeedAdd,
  encodeTokenSpeedAddPayload,
  encodeTokenSpeedAddFields,
  type TsAddFields,
  encodeTokenSpeedAbort,
  encodeTokenSpeedAbortPayload,
} from './request-encode.js';
export { PROMPT_LOGPROBS_UNSUPPORTED, guardTokenSpeedRequest, guardTokenSpeedSampling } from './guard.js';
export { WireFieldError } from '../guard-checks.js';
export { decodeTokenSpeedOutput } from './output-decode.js';
export { decodeTokenSpeedRegistration } from './registration-decode.js';
export { toTokenSpeedSampling, normalizeTokenSpeedSampling } from './sampling-normalize.js';
export { writeTokenSpeedSampling } from './sampling-write.js';
export { SAMPLING_LAYOUT, defaultSamplingParams, type TsSamplingParams, type SlotKind } from './sampling-layout.js';
export * from './wire-constants.js';
