/**
 * Engine-side shapes of the TokenSpeed wire, as a fake engine sees them: the decoded ADD request,
 * the input-message union, and the rows/batches it emits.
 */
import type { TsSamplingParams } from '../../../engine/dialects/tokenspeed/sampling-layout.js';
import type { WireFinish } from '../../../engine/dialects/tokenspeed/wire-constants.js';

/** A decoded ADD after the engine's own finalization (normalization, then seed derivation). */
export interface TsAddRequest {
  rid: string;
  inputText: string | null;
  /** Nil or empty is "unsupported" on the real engine; the fake decides how to react. */
  inputIds: number[] | null;
  sampling: TsSamplingParams;
  /** True when `sampling.seed` was derived as crc32(utf8(rid)) because the sender sent nil. */
  seedDerived: boolean;
  returnLogprob: boolean;
  logprobStartLen: number;
  topLogprobsNum: number;
  tokenIdsLogprob: number[] | null;
  stream: boolean;
  /** `session_params[0]`; a non-nil id aborts at admission. */
  sessionId: string | null;
  /** Engine-internal marker; a non-nil value aborts at admission with this text. */
  validationError: string | null;
  /** Whether slot 22 carried multimodal inputs (the text-only fake ignores them). */
  hasMultimodal: boolean;
  /** Elements in the ADD array, tag included (SMG sends 11; the Python encoder 24). */
  wireLength: number;
}

/** What one message on the engine's input DEALER means. */
export type TsInputMessage =
  | { kind: 'add'; request: TsAddRequest }
  | { kind: 'abort'; rids: string[] }
  /** The real engine logs a warning and sends nothing back (§3, §4.8 "Dropped"). */
  | { kind: 'drop'; reason: string };

/** One request row of an output batch, in engine terms (§6.1). */
export interface TsOutputRow {
  rid: string;
  /** Only the tokens not delivered before (delta), the finishing token included. */
  outputIds: number[];
  finishedReason: WireFinish | string;
  promptTokens: number;
  /** Cumulative, including this row's tokens. */
  completionTokens: number;
  cachedTokens: number;
  /** One natural-log probability per id in `outputIds` when return_logprob, else []. */
  logprobVals: number[];
  logprobIdx: number[];
}

/** The load-branch tail (§6.5); kvTotalPages 0 means "no snapshot". */
export interface TsLoadSnapshot {
  numRunning: number;
  numWaiting: number;
  kvActivePages: number;
  kvTotalPages: number;
}

export interface TsOutputBatch {
  rows: TsOutputRow[];
  engineIndex: number;
  /** Only written when the arity is 14; absent there means zeros (no snapshot). */
  load?: TsLoadSnapshot | null;
}
