/**
 * TokenSpeed headless wire dialect (spec wire-tokenspeed.md).
 *
 * Gateway side: `tokenspeedDialect` plus its pieces. Engine side (fake engines): strict input
 * decoding with the engine's finalization, admission checks as data, output-batch, registration
 * and identity encoding.
 */

// ---- gateway side
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

// ---- engine side
export type { TsAddRequest, TsInputMessage, TsOutputRow, TsOutputBatch, TsLoadSnapshot } from './engine/types.js';
export { decodeTokenSpeedInput } from './engine/input-decode.js';
export {
  admitTokenSpeedRequest,
  admissionAbortRow,
  DEFAULT_ADMISSION_CONFIG,
  LOGPROBS_DISABLED_MESSAGE,
  type TsAdmissionConfig,
} from './engine/admission.js';
export { encodeTokenSpeedBatch, tokenspeedDeathFrame } from './engine/output-encode.js';
export {
  encodeTokenSpeedHello,
  encodeTokenSpeedReady,
  encodeTokenSpeedRegistration,
  defaultRegistrationInfo,
  tokenspeedEngineIndex,
  tokenspeedIdentity,
  tokenspeedDataPlane,
  TOKENSPEED_STATUS_OPTIONS,
  type TsRegistrationInfo,
  type RegistrationVariant,
} from './engine/handshake.js';
export { crc32 } from './engine/crc32.js';
