/**
 * Engine side of the request plane, for fake engines: what a vLLM engine's input thread does with
 * `[type, payload, aux…]` (spec wire-vllm §3.1, §3.9). ADD is decoded as strictly as msgspec and
 * validated like SamplingParams; anything the real engine would choke on is reported with the
 * consequence it has there, so the fake can reproduce it (input thread death vs engine death).
 */
import type { TypedValue } from '../typed-reader.js';
import { readTyped, toPlain } from '../typed-reader.js';
import { ENGINE_CORE_REQUEST_MIN_FIELDS, RequestType } from '../../../engine/dialects/vllm/constants.js';
import { decodeSamplingParams, type ParsedSamplingParams } from './sampling-decode.js';
import {
  StrictDecodeError,
  expectArray,
  expectBool,
  expectFloat,
  expectInt,
  expectIntArray,
  expectStr,
  fail,
  nullable,
  structFields,
} from './strict.js';

/** An EngineCoreRequest after strict decode, defaults filled in. */
export interface ParsedAddRequest {
  requestId: string;
  promptTokenIds: number[] | null;
  hasMmFeatures: boolean;
  sampling: ParsedSamplingParams;
  arrivalTime: number;
  cacheSalt: string | null;
  dataParallelRank: number | null;
  clientIndex: number;
  currentWave: number;
  priority: number;
  traceHeaders: Record<string, string> | null;
  resumable: boolean;
  externalReqId: string | null;
  reasoningEnded: boolean | null;
  abortImmediately: boolean;
  /** How many array elements the frontend sent (20 for 0.27, 21 with session_id). */
  fieldCount: number;
}

export type EngineInput =
  | { kind: 'add'; request: ParsedAddRequest }
  | { kind: 'abort'; requestIds: string[] }
  | { kind: 'start_wave'; wave: number; excludeRank: number | null }
  | { kind: 'utility'; clientIndex: number; callId: number | bigint; method: string; args: unknown[] }
  /** 0x05 with a payload: an internal wake-up, nothing to do. */
  | { kind: 'wakeup' }
  /** The real engine's input thread dies: it never reads another request and says nothing. */
  | { kind: 'input_dead'; reason: string }
  /**
   * The real engine sends ENGINE_CORE_DEAD and exits. `requestType` lets a dense fake ignore a
   * malformed START_DP_WAVE, as a dense vLLM engine never unpacks it.
   */
  | { kind: 'engine_dead'; reason: string; requestType: number };

/** `frames` as the engine's DEALER receives them: `[type, payload, aux…]`. */
export function decodeEngineInput(frames: readonly Buffer[]): EngineInput {
  const typeFrame = frames[0];
  if (typeFrame === undefined || typeFrame.length !== 1) {
    return { kind: 'input_dead', reason: `bad request type frame (${typeFrame?.length ?? 0} bytes)` };
  }
  const type = typeFrame[0];
  if (type === RequestType.EXECUTOR_FAILED) return { kind: 'engine_dead', reason: 'EXECUTOR_FAILED received', requestType: type };
  const payload = frames[1];
  if (payload === undefined) return { kind: 'input_dead', reason: `request type ${type} without a payload frame` };
  if (type > RequestType.WAKEUP) return { kind: 'input_dead', reason: `Unrecognized input request type ${type}` };
  let v: TypedValue;
  try {
    v = readTyped(payload);
  } catch (err) {
    return { kind: 'input_dead', reason: `undecodable payload: ${(err as Error).message}` };
  }
  switch (type) {
    case RequestType.ADD: {
      const r = decodeAddPayload(v);
      return r.ok ? { kind: 'add', request: r.request } : { kind: 'input_dead', reason: r.reason };
    }
    case RequestType.ABORT:
      return decodeAbort(v);
    case RequestType.START_DP_WAVE:
      return decodeStartWave(v);
    case RequestType.UTILITY:
      return decodeUtility(v);
    default:
      return { kind: 'wakeup' };
  }
}

/** Decode an ADD payload (the EngineCoreRequest array) strictly. */
export function decodeAddPayload(v: TypedValue): { ok: true; request: ParsedAddRequest } | { ok: false; reason: string } {
  try {
    return { ok: true, request: decodeAdd(v) };
  } catch (err) {
    if (err instanceof StrictDecodeError) return { ok: false, reason: err.message };
    throw err;
  }
}

function decodeAdd(v: TypedValue): ParsedAddRequest {
  const a = expectArray(v, '$');
  if (a.length < ENGINE_CORE_REQUEST_MIN_FIELDS) {
    fail(`Expected \`array\` of at least length ${ENGINE_CORE_REQUEST_MIN_FIELDS}, got ${a.length}`);
  }
  const intOr = (i: number, dflt: number): number => (i < a.length ? expectInt(a[i], `$[${i}]`) : dflt);
  const boolOr = (i: number, dflt: boolean): boolean => (i < a.length ? expectBool(a[i], `$[${i}]`) : dflt);

  const requestId = expectStr(a[0], '$[0]');
  const promptTokenIds = nullable(a[1], '$[1]', expectIntArray);
  const mm = a[2];
  if (mm.t !== 'nil' && mm.t !== 'array') fail(`Expected \`array | null\`, got \`${mm.t}\` - at \`$[2]\``);
  // The fake engine only generates; a pooling request (or none at all) is out of its scope.
  if (a[3].t === 'nil') fail('sampling_params is required (pooling requests are not supported)');
  const sampling = decodeSamplingParams(a[3], '$[3]');
  if (a[4].t !== 'nil') fail('pooling_params must be nil when sampling_params is set');
  const arrivalTime = expectFloat(a[5], '$[5]');
  const cacheSalt = nullable(a[7], '$[7]', expectStr);
  const dataParallelRank = nullable(a[8], '$[8]', expectInt);
  if (a.length > 10) nullable(a[10], '$[10]', (x, p) => expectArray(x, p).map((b, i) => expectBool(b, `${p}[${i}]`)));
  const clientIndex = intOr(11, 0);
  // One output address was handed out in INIT; any other index crashes the engine's output thread.
  if (clientIndex !== 0) fail(`client_index ${clientIndex} has no output socket (only client 0 exists)`);
  const traceHeaders = a.length > 14 ? nullable(a[14], '$[14]', decodeStrMap) : null;
  return {
    requestId,
    promptTokenIds,
    hasMmFeatures: mm.t === 'array',
    sampling,
    arrivalTime,
    cacheSalt,
    dataParallelRank,
    clientIndex,
    currentWave: intOr(12, 0),
    priority: intOr(13, 0),
    traceHeaders,
    resumable: boolOr(15, false),
    externalReqId: a.length > 16 ? nullable(a[16], '$[16]', expectStr) : null,
    reasoningEnded: a.length > 17 ? nullable(a[17], '$[17]', expectBool) : null,
    abortImmediately: boolOr(19, false),
    fieldCount: a.length,
  };
}

function decodeStrMap(v: TypedValue, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, item] of structFields(v, path)) {
    Object.defineProperty(out, k, { value: expectStr(item, `${path}.${k}`), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A list of ids, or a bare str (tolerated as one id); anything else kills the busy loop. */
function decodeAbort(v: TypedValue): EngineInput {
  if (v.t === 'str') return { kind: 'abort', requestIds: [v.v] };
  if (v.t === 'array' && v.v.every((x) => x.t === 'str')) {
    return { kind: 'abort', requestIds: v.v.map((x) => (x as { v: string }).v) };
  }
  return { kind: 'engine_dead', reason: 'ABORT payload is not a list of request ids', requestType: RequestType.ABORT };
}

/** `[wave, exclude_rank | nil]`, unpacked in the busy loop: a bad shape is fatal there. */
function decodeStartWave(v: TypedValue): EngineInput {
  if (v.t === 'array' && v.v.length === 2 && v.v[0].t === 'int' && (v.v[1].t === 'int' || v.v[1].t === 'nil')) {
    const wave = Number(v.v[0].v);
    const ex = v.v[1];
    return { kind: 'start_wave', wave, excludeRank: ex.t === 'int' ? Number(ex.v) : null };
  }
  return {
    kind: 'engine_dead',
    reason: 'START_DP_WAVE payload is not [wave, exclude_rank]',
    requestType: RequestType.START_DP_WAVE,
  };
}

/** `[client_index, call_id, method, args]`, unpacked on the input thread: not 4 → thread dies. */
function decodeUtility(v: TypedValue): EngineInput {
  if (v.t !== 'array' || v.v.length !== 4) return { kind: 'input_dead', reason: 'UTILITY payload is not a 4-element array' };
  const [ci, id, method, args] = v.v;
  if (ci.t !== 'int' || id.t !== 'int' || method.t !== 'str' || args.t !== 'array') {
    return { kind: 'input_dead', reason: 'UTILITY payload has the wrong element types' };
  }
  return { kind: 'utility', clientIndex: Number(ci.v), callId: id.v, method: method.v, args: args.v.map(toPlain) };
}
