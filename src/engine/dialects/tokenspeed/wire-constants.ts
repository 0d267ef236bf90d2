/**
 * Fixed facts of the TokenSpeed headless wire (spec wire-tokenspeed.md). Shared by the gateway
 * side and the engine side so both agree on every tag, byte and sentinel value.
 */

/** Element 0 of an ADD payload; any other tag makes the engine drop the message (§4.1). */
export const ADD_TAG = 'TokenizedGenerateReqInput';
/** Element 0 of every output batch (§6.1). */
export const BATCH_TAG = 'BatchTokenIDOutSlim';

/** Request-type bytes on the input socket; TokenSpeed has no wave or utility messages (§3). */
export const REQ_TYPE_ADD = 0x00;
export const REQ_TYPE_ABORT = 0x01;

/** Raw (non-msgpack) death frame, the same bytes vLLM uses (§7). */
export const DEAD_SENTINEL = Buffer.from('ENGINE_CORE_DEAD', 'ascii');

/** `top_k` meaning "whole vocabulary" once normalized: the engine maps −1 to 1<<30 (§4.3.1). */
export const TOP_K_ALL = 1 << 30;
/** Values at or above this are rejected unless equal to TOP_K_ALL (fused-kernel limit, §4.3). */
export const TOP_K_KERNEL_LIMIT = 128;
/** Temperatures below this collapse to greedy (temperature 1.0, top_k 1). */
export const GREEDY_TEMPERATURE_EPS = 1e-6;

/** SMG sends the tag plus the first 10 request fields (through `stream`), i.e. 11 elements. */
export const ADD_SENT_LENGTH = 11;
/** The engine rejects ADD arrays shorter than tag..sampling_params (§4.1). */
export const ADD_MIN_LENGTH = 6;

/** Batch arities seen in the field: 9 (pre 2026-08-12), 10 (main), 14 (load branch) (§6.1). */
export type BatchArity = 9 | 10 | 14;
/** Tag plus the 8 columns: the least a batch must carry. */
export const BATCH_MIN_LENGTH = 9;
export const BATCH_ENGINE_INDEX_POS = 9;
export const BATCH_LOAD_POS = 10;

/** Finish strings on the wire; "" means still running (§6.2). */
export const FINISH_RUNNING = '';
export type WireFinish = '' | 'stop' | 'length' | 'abort';

/** `--prefix-granularity` default, used when a registration names neither spelling (§2.4). */
export const DEFAULT_PREFIX_GRANULARITY = 64;

/** The engine remembers an aborted-but-unknown rid this long and kills a later ADD with it (§5). */
export const ABORTED_RID_MEMORY_MS = 300_000;
