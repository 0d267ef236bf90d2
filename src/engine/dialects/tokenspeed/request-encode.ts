/**
 * Gateway side: ADD and ABORT frames (§3, §4, §5). The ADD payload is the tagged positional
 * `TokenizedGenerateReqInput`, cut after `stream` (11 elements) exactly like SMG: the remaining
 * fields are multimodal, PD or engine-internal and must keep their defaults.
 */
import type { EngineRequest, InputFrames } from '../../types.js';
import { WireEncodeError } from '../../types.js';
import { packedTokenIdsOf } from '../../msgpack/packed-token-ids.js';
import { MsgpackWriter } from '../../msgpack/writer.js';
import { guardTokenSpeedRequest, guardTokenSpeedSampling } from './guard.js';
import type { TsSamplingParams } from './sampling-layout.js';
import { toTokenSpeedSampling } from './sampling-normalize.js';
import { writeTokenSpeedSampling } from './sampling-write.js';
import { ADD_SENT_LENGTH, ADD_TAG, REQ_TYPE_ABORT, REQ_TYPE_ADD } from './wire-constants.js';

export { PROMPT_LOGPROBS_UNSUPPORTED } from './guard.js';

const ADD_TYPE_FRAME = Buffer.from([REQ_TYPE_ADD]);
const ABORT_TYPE_FRAME = Buffer.from([REQ_TYPE_ABORT]);

// One writer per process: encoding is synchronous, and toBuffer() copies the bytes out.
const writer = new MsgpackWriter(4096);

/**
 * Throws WireEncodeError (a WireFieldError naming the wire field) for requests the engine would
 * drop, mis-handle or abort without saying why (empty prompt, a non-integer in an int slot, an
 * unsafe seed, any §4.3 range violation such as top_k ≥ 128): a drop only surfaces as a hung
 * stream and an abort row carries no message, so failing that one request at submit with a
 * precise reason is kinder. The checks live in guard.ts. What only the engine knows
 * (--enable-output-logprobs, --grammar-backend) still comes back as an abort row.
 */
export function encodeTokenSpeedAdd(req: EngineRequest): InputFrames {
  return [ADD_TYPE_FRAME, encodeTokenSpeedAddPayload(req)];
}

export function encodeTokenSpeedAddPayload(req: EngineRequest): Buffer {
  guardTokenSpeedRequest(req);
  const sampling = toTokenSpeedSampling(req.sampling);
  guardTokenSpeedSampling(sampling);
  try {
    return encodeTokenSpeedAddFields({
      rid: req.requestId,
      inputIds: req.promptTokenIds,
      sampling,
      // Only the sampled token's logprob exists on this wire, so any logprob request turns it on.
      returnLogprob: req.sampling.logprobs !== null,
      // Streaming by default: per-step rows cost little and let the gateway's stop matching act early.
      stream: req.stream ?? true,
    });
  } catch (err) {
    // Only reachable if the guard missed something: the writer refused a value; nothing is sent.
    throw new WireEncodeError(`tokenspeed ADD ${req.requestId}: ${(err as Error).message}`);
  }
}

/** The ADD fields SMG sets; everything else keeps the engine default. */
export interface TsAddFields {
  rid: string;
  inputIds: number[];
  /** Sent as given: callers outside `encodeTokenSpeedAddPayload` must normalize it themselves. */
  sampling: TsSamplingParams;
  returnLogprob: boolean;
  stream: boolean;
}

/** The 11-element payload from already-decided wire fields (also lets tests send nil max_new_tokens). */
export function encodeTokenSpeedAddFields(f: TsAddFields): Buffer {
  const w = writer.reset();
  w.arrayHeader(ADD_SENT_LENGTH);
  w.str(ADD_TAG);
  w.str(f.rid);
  w.nil(); // http_worker_ipc: unused on this path
  w.nil(); // input_text: token path only
  // A long prompt's ids come packed from its prompt thread: the same bytes intArray writes.
  const packed = packedTokenIdsOf(f.inputIds);
  if (packed !== null) w.raw(packed);
  else w.intArray(f.inputIds);
  writeTokenSpeedSampling(w, f.sampling);
  w.bool(f.returnLogprob);
  w.int(-1); // logprob_start_len
  // top_logprobs_num: ignored by the engine on this path (no top-k); the §10.2 vector sends 0.
  w.int(0);
  w.nil(); // token_ids_logprob: prompt logprobs are unsupported
  w.bool(f.stream);
  return w.toBuffer();
}

/** One message may carry many rids; the engine never acknowledges it (§5). */
export function encodeTokenSpeedAbort(requestIds: string[]): InputFrames {
  return [ABORT_TYPE_FRAME, encodeTokenSpeedAbortPayload(requestIds)];
}

export function encodeTokenSpeedAbortPayload(requestIds: string[]): Buffer {
  return writer.reset().strArray(requestIds).toBuffer();
}
