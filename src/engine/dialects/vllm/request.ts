/**
 * Gateway side of the request plane (spec wire-vllm §3): the frames after the ROUTER identity,
 * `[type byte, msgpack payload]`. ADD carries a 20-element `EngineCoreRequest` array, exactly as
 * vLLM 0.26/0.27's own frontend sends it (vector R1).
 */
import type { EngineRequest, InputFrames } from '../../types.js';
import { WireEncodeError } from '../../types.js';
import { packedTokenIdsOf } from '../../msgpack/packed-token-ids.js';
import { MsgpackWriter } from '../../msgpack/writer.js';
import { ENGINE_CORE_REQUEST_FIELDS, RequestType } from './constants.js';
import { guardEngineRequest } from './guard.js';
import { writeSamplingParams } from './sampling.js';

// One writer reused by every encode (they are synchronous); each frame gets a copy of the bytes.
const w = new MsgpackWriter(4096);

// The type byte frames never change; one shared Buffer each instead of an allocation per message.
const ADD_FRAME = Buffer.from([RequestType.ADD]);
const ABORT_FRAME = Buffer.from([RequestType.ABORT]);
const START_DP_WAVE_FRAME = Buffer.from([RequestType.START_DP_WAVE]);
const UTILITY_FRAME = Buffer.from([RequestType.UTILITY]);

/**
 * ADD. Throws WireEncodeError (a WireFieldError naming the field) for a request the engine would
 * reject: `guardEngineRequest` checks every field before a byte is written.
 */
export function encodeAdd(req: EngineRequest): InputFrames {
  guardEngineRequest(req);
  try {
    w.reset();
    w.arrayHeader(ENGINE_CORE_REQUEST_FIELDS);
    w.str(req.requestId); // 0 request_id
    // 1 prompt_token_ids (a long prompt's come packed from its prompt thread: the same bytes)
    const packed = packedTokenIdsOf(req.promptTokenIds);
    if (packed !== null) w.raw(packed);
    else w.uintArray(req.promptTokenIds);
    w.nil(); // 2 mm_features
    writeSamplingParams(w, req.sampling); // 3 sampling_params
    w.nil(); // 4 pooling_params
    w.float64(req.arrivalTime); // 5 arrival_time
    w.nil(); // 6 lora_request
    if (req.cacheSalt === null) w.nil();
    else w.str(req.cacheSalt); // 7 cache_salt
    if (req.dataParallelRank === null) w.nil();
    else w.int(req.dataParallelRank); // 8 data_parallel_rank (informational for the engine)
    w.nil().nil(); // 9 prompt_embeds, 10 prompt_is_token_ids
    // 11 client_index: must be 0 — it indexes the engine's list of output sockets (one here).
    w.int(0).int(0).int(req.priority); // 11 client_index, 12 current_wave, 13 priority
    w.nil().bool(false).nil().nil().nil().bool(false); // 14..19 (trace … abort_immediately)
    return [ADD_FRAME, w.toBuffer()];
  } catch (err) {
    // Only reachable if the guard missed something: the bytes are dropped, so nothing is sent.
    if (err instanceof WireEncodeError) throw err;
    throw new WireEncodeError(`request ${req.requestId}: ${(err as Error).message}`);
  }
}

/** ABORT: idempotent; the engine sends nothing back for a client abort. */
export function encodeAbort(requestIds: readonly string[]): InputFrames {
  w.reset().strArray(requestIds);
  return [ABORT_FRAME, w.toBuffer()];
}

/**
 * START_DP_WAVE `[wave, nil]` (lockstep MoE groups only). exclude_rank is always nil: every rank
 * must wake, including the one that got the new request (spec §3.6).
 */
export function encodeStartWave(wave: number): InputFrames {
  w.reset().arrayHeader(2).int(wave).nil();
  return [START_DP_WAVE_FRAME, w.toBuffer()];
}

/**
 * UTILITY `[client_index=0, call_id, method, args]`; the reply comes on the output socket.
 * Keep call ids below 2^53 (or pass a bigint) so they survive a round trip.
 */
export function encodeUtility(callId: number | bigint, method: string, args: readonly unknown[] = []): InputFrames {
  w.reset().arrayHeader(4).int(0);
  if (typeof callId === 'bigint') w.bigint(callId);
  else w.int(callId);
  w.str(method).value(args);
  return [UTILITY_FRAME, w.toBuffer()];
}
