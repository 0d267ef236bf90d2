/** Fixed numbers and bytes of the vLLM v1 EngineCore wire (spec wire-vllm §3.1, §5.1, §5.4). */
import type { FinishReason } from '../../types.js';

/** First frame after the ROUTER identity on the input socket. */
export const RequestType = {
  ADD: 0x00,
  ABORT: 0x01,
  START_DP_WAVE: 0x02,
  UTILITY: 0x03,
  /** Internal engine sentinels: a frontend must never send these. */
  EXECUTOR_FAILED: 0x04,
  WAKEUP: 0x05,
} as const;

/** Fields of EngineCoreRequest that vLLM 0.26/0.27 declare; we always send all of them. */
export const ENGINE_CORE_REQUEST_FIELDS = 20;
/** msgspec refuses fewer: fields 0..8 have no default. */
export const ENGINE_CORE_REQUEST_MIN_FIELDS = 9;
export const ENGINE_CORE_OUTPUTS_FIELDS = 8;
export const ENGINE_CORE_OUTPUT_FIELDS = 14;

/** The single-frame death notice (16 ASCII bytes, not msgpack). */
export const ENGINE_CORE_DEAD: Buffer = Buffer.from('ENGINE_CORE_DEAD', 'ascii');

export function isEngineCoreDead(frames: readonly Buffer[]): boolean {
  return frames.length === 1 && frames[0].equals(ENGINE_CORE_DEAD);
}

/** vLLM's FinishReason IntEnum values. */
export const FinishReasonCode = {
  STOP: 0,
  LENGTH: 1,
  ABORT: 2,
  ERROR: 3,
  REPETITION: 4,
} as const;

const FINISH_BY_CODE: readonly FinishReason[] = ['stop', 'length', 'abort', 'error', 'repetition'];

/** Unknown codes (newer engines may add some) are an error finish, not a decode failure. */
export function finishReasonFromCode(code: number): FinishReason {
  return FINISH_BY_CODE[code] ?? 'error';
}

/** EngineCoreEventType values carried in `events`. */
export const EngineCoreEventType = { QUEUED: 1, SCHEDULED: 2, PREEMPTED: 3 } as const;

/** numpy-array payloads at or above this many bytes travel as aux frames (VLLM_MSGPACK_ZERO_COPY_THRESHOLD). */
export const INLINE_ARRAY_THRESHOLD = 256;
