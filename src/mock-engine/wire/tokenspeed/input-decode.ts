/**
 * Engine side: `[type, payload, ...aux]` from the input DEALER → TsInputMessage, with the real
 * engine's strictness (§3, §4.1, §4.8 "Dropped"). Any defect yields `{kind: 'drop'}`: the real
 * engine logs a warning and never replies, and a faithful fake must do the same.
 *
 * An ADD is also finalized like the engine does it: normalized when `is_normalized` is false,
 * then an unset seed becomes crc32(utf8(rid)).
 */
import { readTyped, type TypedValue } from '../typed-reader.js';
import { SAMPLING_LAYOUT, defaultSamplingParams, type SlotKind, type TsSamplingParams } from '../../../engine/dialects/tokenspeed/sampling-layout.js';
import { normalizeTokenSpeedSampling } from '../../../engine/dialects/tokenspeed/sampling-normalize.js';
import { ADD_MIN_LENGTH, ADD_TAG, REQ_TYPE_ABORT, REQ_TYPE_ADD } from '../../../engine/dialects/tokenspeed/wire-constants.js';
import { crc32 } from './crc32.js';
import * as s from './typed-slots.js';
import type { TsAddRequest, TsInputMessage } from './types.js';

export function decodeTokenSpeedInput(frames: Uint8Array[]): TsInputMessage {
  if (frames.length < 2) return drop(`expected ≥ 2 frames, got ${frames.length}`);
  const type = frames[0];
  if (type.byteLength !== 1 || (type[0] !== REQ_TYPE_ADD && type[0] !== REQ_TYPE_ABORT)) {
    return drop(`unknown request type 0x${Buffer.from(type).toString('hex')}`);
  }
  try {
    const payload = readTyped(frames[1]);
    if (type[0] === REQ_TYPE_ABORT) return { kind: 'abort', rids: s.strList(payload, 'abort') };
    return { kind: 'add', request: decodeAdd(payload) };
  } catch (err) {
    return drop((err as Error).message);
  }
}

function drop(reason: string): TsInputMessage {
  return { kind: 'drop', reason: `msgpack input: dropping malformed message (${reason})` };
}

/** ADD slots after the tag, in wire order, with the checker of each (§4.2). */
function decodeAdd(payload: TypedValue): TsAddRequest {
  const arr = s.array(payload, '$');
  if (arr.length < ADD_MIN_LENGTH) {
    throw new s.SlotTypeError(`Expected \`array\` of length >= ${ADD_MIN_LENGTH}, got ${arr.length}`);
  }
  if (arr[0].t !== 'str' || arr[0].v !== ADD_TAG) {
    throw new s.SlotTypeError(`Invalid value ${JSON.stringify(s.any(arr[0]))} - at \`$[0]\` (tag)`);
  }
  // Missing trailing slots take their defaults; extra ones are ignored.
  const at = <T>(i: number, name: string, check: (v: TypedValue, n: string) => T, dflt: T): T =>
    i < arr.length ? check(arr[i], name) : dflt;
  const rid = at(1, 'rid', s.opt(s.str), null);
  // A nil rid crashes the engine's seed derivation, which it survives by dropping the message.
  if (rid === null) throw new s.SlotTypeError('rid is nil');
  at(2, 'http_worker_ipc', s.opt(s.str), null);
  const inputText = at(3, 'input_text', s.opt(s.str), null);
  const inputIds = at(4, 'input_ids', s.opt(s.intList), null);
  const sampling = decodeSampling(arr[5]);
  const returnLogprob = at(6, 'return_logprob', s.bool, false);
  const logprobStartLen = at(7, 'logprob_start_len', s.int, -1);
  const topLogprobsNum = at(8, 'top_logprobs_num', s.int, 0);
  const tokenIdsLogprob = at(9, 'token_ids_logprob', s.opt(s.intList), null);
  const stream = at(10, 'stream', s.bool, false);
  at(11, 'input_embeds', s.opt(s.array), null);
  const sessionId = at(12, 'session_params', s.opt(sessionIdOf), null);
  at(13, 'custom_logit_processor', s.opt(s.str), null);
  at(14, 'return_hidden_states', s.bool, false);
  at(15, 'created_time', s.float, 0);
  at(16, 'bootstrap_host', s.opt(s.str), null);
  at(17, 'bootstrap_port', s.opt(s.int), null);
  at(18, 'bootstrap_room', s.opt(s.int), null);
  at(19, 'input_multi_ids', s.opt((v, n) => s.array(v, n).map((x, i) => s.intList(x, `${n}[${i}]`))), null);
  at(20, 'input_extra_infos', s.opt((v, n) => s.array(v, n).map((x, i) => s.plainMap(x, `${n}[${i}]`))), null);
  at(21, 'input_ids_unpadded', s.opt(s.intList), null);
  const multimodal = at(22, 'multimodal_inputs', (v) => (v.t === 'nil' ? null : s.any(v)), null);
  const validationError = at(23, 'validation_error', s.opt(s.str), null);

  normalizeTokenSpeedSampling(sampling);
  const seedDerived = sampling.seed === null;
  if (seedDerived) sampling.seed = crc32(rid);
  return {
    rid,
    inputText,
    inputIds,
    sampling,
    seedDerived,
    returnLogprob,
    logprobStartLen,
    topLogprobsNum,
    tokenIdsLogprob,
    stream,
    sessionId,
    validationError,
    hasMultimodal: multimodal !== null,
    wireLength: arr.length,
  };
}

/** session_params is `[id, rid, offset, replace]`; only a non-nil id matters (it aborts). */
function sessionIdOf(v: TypedValue, name: string): string | null {
  const parts = s.array(v, name);
  return parts.length === 0 ? null : s.opt(s.str)(parts[0], `${name}[0]`);
}

/** The nested untagged 29-slot array; a map is rejected, missing slots default, extras ignored. */
function decodeSampling(v: TypedValue): TsSamplingParams {
  const arr = s.array(v, 'sampling_params');
  const sp = defaultSamplingParams() as unknown as Record<string, unknown>;
  SAMPLING_LAYOUT.forEach((slot, i) => {
    if (i < arr.length) sp[slot.key] = checkSlot(slot.kind, arr[i], `sampling_params.${slot.key}`);
  });
  return sp as unknown as TsSamplingParams;
}

function checkSlot(kind: SlotKind, v: TypedValue, name: string): unknown {
  switch (kind) {
    case 'int':
      return s.int(v, name);
    case 'int?':
      return s.opt(s.int)(v, name);
    case 'float':
      return s.float(v, name);
    case 'bool':
      return s.bool(v, name);
    case 'str?':
      return s.opt(s.str)(v, name);
    case 'int[]?':
      return s.opt(s.intList)(v, name);
    case 'str|str[]?':
      return s.strOrStrList(v, name);
    case 'map?':
      return s.opt(s.plainMap)(v, name);
    case 'floatmap?':
      return s.opt(s.floatMap)(v, name);
  }
}
