/**
 * Gateway side of the output plane (spec wire-vllm §5): one PULL message → one OutputEvent.
 *
 * Tolerance follows msgspec's array_like rule, which is how vLLM evolves these structs: read the
 * known prefix, ignore extra trailing elements (newer engines append), default missing trailing
 * ones. Unknown finish reasons become an 'error' finish instead of failing the whole batch.
 */
import type { EngineLoad, FinishReason, OutputEvent, RequestOutput } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { decodeMsgpack } from '../../msgpack/reader.js';
import { finishReasonFromCode, isEngineCoreDead } from './constants.js';
import { decodeLogprobRows } from './logprobs.js';

/** Decode one output message (all its frames). Throws WireDecodeError when it is malformed. */
export function decodeOutput(frames: Buffer[]): OutputEvent {
  if (frames.length === 0) throw new WireDecodeError('empty output message');
  if (isEngineCoreDead(frames)) return { kind: 'dead' };
  const msg = decodeMsgpack(frames[0], 'EngineCoreOutputs');
  if (!Array.isArray(msg)) throw new WireDecodeError('EngineCoreOutputs is not an array');
  const engineIndex = msg.length > 0 ? int(msg[0], 'engine_index') : 0;
  const rawOutputs: unknown = msg.length > 1 ? msg[1] : null;
  const stats: unknown = msg[2] ?? null;
  const utility: unknown = msg[4] ?? null;
  const finished: unknown = msg[5] ?? null;
  const waveComplete: unknown = msg[6] ?? null;
  const startWave: unknown = msg[7] ?? null;

  const outputs = decodeOutputList(rawOutputs, frames);
  // vLLM never mixes the families in one message; should it, per-request data wins (losing it
  // would strand requests), then utility, then wave control.
  if (outputs.length === 0 && stats === null && finished === null) {
    if (utility !== null) return decodeUtility(engineIndex, utility);
    if (waveComplete !== null) return { kind: 'wave_complete', engineIndex, wave: int(waveComplete, 'wave_complete') };
    if (startWave !== null) return { kind: 'start_wave', engineIndex, wave: int(startWave, 'start_wave') };
  }
  return {
    kind: 'batch',
    engineIndex,
    outputs,
    load: stats === null ? null : decodeLoad(stats),
    finishedRequests: finished === null ? null : strList(finished, 'finished_requests'),
  };
}

function decodeOutputList(raw: unknown, frames: readonly Buffer[]): RequestOutput[] {
  if (raw === null) return [];
  if (!Array.isArray(raw)) throw new WireDecodeError('outputs is not an array');
  const out: RequestOutput[] = new Array<RequestOutput>(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = decodeOne(raw[i], frames);
  return out;
}

/** One EngineCoreOutput (14 fields in 0.26/0.27; request_id and new_token_ids are required). */
function decodeOne(raw: unknown, frames: readonly Buffer[]): RequestOutput {
  if (!Array.isArray(raw) || raw.length < 2) throw new WireDecodeError('EngineCoreOutput is not an array of >= 2');
  const requestId: unknown = raw[0];
  if (typeof requestId !== 'string') throw new WireDecodeError('EngineCoreOutput.request_id is not a string');
  const tokens: unknown = raw[1];
  if (!Array.isArray(tokens)) throw new WireDecodeError(`${requestId}: new_token_ids is not an array`);
  for (let i = 0; i < tokens.length; i++) {
    if (!Number.isInteger(tokens[i])) throw new WireDecodeError(`${requestId}: new_token_ids[${i}] is not an int`);
  }
  const newTokenIds = tokens as number[];
  const finishRaw: unknown = raw[5] ?? null;
  let finish: FinishReason | null = null;
  if (finishRaw !== null) finish = finishReasonFromCode(int(finishRaw, 'finish_reason'));
  const stopRaw: unknown = raw[6] ?? null;
  const logprobsRaw: unknown = raw[2] ?? null;
  if (stopRaw !== null && typeof stopRaw !== 'string' && !Number.isInteger(stopRaw)) {
    throw new WireDecodeError(`${requestId}: stop_reason is neither int nor str`);
  }
  return {
    requestId,
    newTokenIds,
    finish,
    stopReason: stopRaw as number | string | null,
    // Most outputs carry no logprobs: skip building the error-context string for them.
    logprobs: logprobsRaw === null ? null : decodeLogprobRows(logprobsRaw, frames, `${requestId}.new_logprobs`),
    cachedTokens: cachedTokens(raw[11] ?? null),
    errorMessage: null,
    // vLLM appends the token that matched (EOS or a stop_token_ids id) before finishing STOP.
    endsWithStopToken: finish === 'stop' && newTokenIds.length > 0,
  };
}

/** prefill_stats.num_cached_tokens; older layouts put a bare int around here, which we ignore. */
function cachedTokens(prefill: unknown): number | null {
  if (prefill === null || typeof prefill !== 'object' || Array.isArray(prefill)) return null;
  const n: unknown = (prefill as Record<string, unknown>)['num_cached_tokens'];
  return Number.isInteger(n) ? (n as number) : null;
}

function decodeLoad(raw: unknown): EngineLoad {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new WireDecodeError('scheduler_stats is not a map');
  const s = raw as Record<string, unknown>;
  return {
    numRunning: num(s['num_running_reqs'], 'num_running_reqs'),
    numWaiting: num(s['num_waiting_reqs'], 'num_waiting_reqs'),
    kvCacheUsage: num(s['kv_cache_usage'], 'kv_cache_usage'),
  };
}

/** UtilityOutput `[call_id, failure_message, result]`, result = `[type_tag(nil), value]` or nil. */
function decodeUtility(engineIndex: number, raw: unknown): OutputEvent {
  if (!Array.isArray(raw) || raw.length < 1) throw new WireDecodeError('utility_output is not an array');
  const callId = int(raw[0], 'utility_output.call_id');
  const failure: unknown = raw[1] ?? null;
  if (failure !== null && typeof failure !== 'string') throw new WireDecodeError('utility failure_message is not a string');
  const wrapped: unknown = raw[2] ?? null;
  const result: unknown = Array.isArray(wrapped) && wrapped.length === 2 ? wrapped[1] : wrapped;
  return { kind: 'utility', engineIndex, callId, failure, result };
}

function int(v: unknown, what: string): number {
  if (!Number.isInteger(v)) throw new WireDecodeError(`${what} is not an int`);
  return v as number;
}

/** Missing counters read as 0: only the types of what is present are enforced. */
function num(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number') throw new WireDecodeError(`scheduler_stats.${what} is not a number`);
  return v;
}

function strList(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new WireDecodeError(`${what} is not a list of str`);
  return v as string[];
}
