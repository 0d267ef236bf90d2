/**
 * The gateway's view of a TokenSpeed headless engine: the Dialect seam implementation.
 */
import type { Dialect } from '../../types.js';
import { decodeTokenSpeedOutput } from './output-decode.js';
import { decodeTokenSpeedRegistration } from './registration-decode.js';
import { encodeTokenSpeedAbort, encodeTokenSpeedAdd } from './request-encode.js';

export const tokenspeedDialect: Dialect = {
  runtime: 'tokenspeed',
  encodeAdd: encodeTokenSpeedAdd,
  encodeAbort: encodeTokenSpeedAbort,
  // DP ranks synchronise inside the engine; there is no wave message to send (§1, §12).
  encodeStartWave: () => null,
  decodeRegistration: decodeTokenSpeedRegistration,
  decodeOutput: decodeTokenSpeedOutput,
};
