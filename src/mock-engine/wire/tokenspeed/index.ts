/**
 * The engine side of the TokenSpeed headless wire (spec wire-tokenspeed.md), as the mock engine
 * speaks it: strict input decoding with the engine's finalization, admission checks as data,
 * output-batch, registration and identity encoding. The gateway side is
 * src/engine/dialects/tokenspeed/ (request-encode ↔ input-decode, output-decode ↔ output-encode,
 * registration-decode ↔ handshake).
 */
export type { TsAddRequest, TsInputMessage, TsOutputRow, TsOutputBatch, TsLoadSnapshot } from './types.js';
export { decodeTokenSpeedInput } from './input-decode.js';
export {
  admitTokenSpeedRequest,
  admissionAbortRow,
  DEFAULT_ADMISSION_CONFIG,
  LOGPROBS_DISABLED_MESSAGE,
  type TsAdmissionConfig,
} from './admission.js';
export { encodeTokenSpeedBatch, tokenspeedDeathFrame } from './output-encode.js';
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
} from './handshake.js';
export { crc32 } from './crc32.js';
