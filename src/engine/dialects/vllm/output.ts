/**
 * Gateway side of the output plane (spec wire-vllm §5): one PULL message → one OutputEvent.
 *
 * Tolerance follows msgspec's array_like rule, which is how vLLM evolves these structs: read the
 * known prefix, ignore extra trailing elements (newer engines append), default missing trailing
 * ones. Unknown finish reasons become an 'error' finish instead of failing the whole batch.
 */
import type { EngineLoad, FinishReason, OutputEvent, RequestOutput } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import type { IdTable } from '../../id-table.js';
import { MsgpackCursor } from '../../msgpack/cursor.js';
import { finishReasonFromCode, isEngineCoreDead } from './constants.js';
import { decodeLogprobRows } from './logprobs.js';

/** Decode one output message (all its frames). Throws WireDecodeError when it is malformed. */
export function decodeOutput(frames: Buffer[], known: IdTable | null = null): OutputEvent {
  if (frames.length === 0) throw new WireDecodeError('empty output message');
  if (isEngineCoreDead(frames)) return { kind: 'dead' };
  const cur = new MsgpackCursor(frames[0]);
  const len = cur.arrayLength('EngineCoreOutputs');
  let engineIndex = 0;
  let outputs: RequestOutput[] = [];
  let load: EngineLoad | null = null;
  let utility: unknown = null;
  let finished: unknown = null;
  let waveComplete: unknown = null;
  let startWave: unknown = null;
  // Positional, as msgspec's array_like structs: known fields by index, extra trailing ones skipped.
  for (let i = 0; i < len; i++) {
    if (cur.nil()) continue;
    switch (i) {
      case 0:
        engineIndex = cur.int('engine_index');
        break;
      case 1:
        outputs = decodeOutputList(cur, frames, known);
        break;
      case 2:
        load = readLoad(cur);
        break;
      case 4:
        utility = cur.value('utility_output');
        break;
      case 5:
        finished = cur.value('finished_requests');
        break;
      case 6:
        waveComplete = cur.value('wave_complete');
        break;
      case 7:
        startWave = cur.value('start_wave');
        break;
      default:
        cur.skip();
    }
  }
  // vLLM never mixes the families in one message; should it, per-request data wins (losing it
  // would strand requests), then utility, then wave control.
  if (outputs.length === 0 && load === null && finished === null) {
    if (utility !== null) return decodeUtility(engineIndex, utility);
    if (waveComplete !== null) return { kind: 'wave_complete', engineIndex, wave: int(waveComplete, 'wave_complete') };
    if (startWave !== null) return { kind: 'start_wave', engineIndex, wave: int(startWave, 'start_wave') };
  }
  return {
    kind: 'batch',
    engineIndex,
    outputs,
    load,
    finishedRequests: finished === null ? null : strList(finished, 'finished_requests'),
  };
}

function decodeOutputList(cur: MsgpackCursor, frames: readonly Buffer[], known: IdTable | null): RequestOutput[] {
  const n = cur.arrayLength('outputs');
  const out: RequestOutput[] = new Array<RequestOutput>(n);
  for (let i = 0; i < n; i++) out[i] = decodeOne(cur, frames, known);
  return out;
}

/** One EngineCoreOutput (14 fields in 0.26/0.27; request_id and new_token_ids are required). */
function decodeOne(cur: MsgpackCursor, frames: readonly Buffer[], known: IdTable | null): RequestOutput {
  const shape = 'EngineCoreOutput is not an array of >= 2';
  const len = cur.arrayLength('EngineCoreOutput', shape);
  if (len < 2) throw new WireDecodeError(shape);
  const requestId = cur.knownStr(known, 'EngineCoreOutput.request_id');
  let newTokenIds: number[];
  let finish: FinishReason | null = null;
  let stopReason: number | string | null = null;
  let logprobsRaw: unknown = null;
  let prefill: unknown = null;
  let events: unknown = null;
  // Field names only: the request id is added to the message on failure, not built per output.
  try {
    newTokenIds = cur.intArray('new_token_ids');
    for (let i = 2; i < len; i++) {
      if (cur.nil()) continue;
      switch (i) {
        case 2:
          logprobsRaw = cur.value('new_logprobs');
          break;
        case 5:
          finish = finishReasonFromCode(cur.int('finish_reason'));
          break;
        case 6:
          stopReason = stopValue(cur.value('stop_reason'));
          break;
        case 7:
          events = cur.value('events');
          break;
        case 11:
          prefill = cur.value('prefill_stats');
          break;
        default:
          cur.skip();
      }
    }
  } catch (err) {
    if (err instanceof WireDecodeError) throw new WireDecodeError(`${requestId}: ${err.message}`);
    throw err;
  }
  return {
    requestId,
    newTokenIds,
    finish,
    stopReason,
    logprobs: logprobsRaw === null ? null : decodeLogprobRows(logprobsRaw, frames, `${requestId}.new_logprobs`),
    cachedTokens: cachedTokens(prefill),
    errorMessage: null,
    // vLLM appends the token that matched (EOS or a stop_token_ids id) before finishing STOP.
    endsWithStopToken: finish === 'stop' && newTokenIds.length > 0,
    // Always present (undefined without events): every output keeps one shape on the hot path.
    queuedSecs: events === null ? undefined : (queuedSecs(events) ?? undefined),
  };
}

const EVENT_QUEUED = 1;
const EVENT_SCHEDULED = 2;

/**
 * Queue time from the scheduler events (wire-vllm §5.3 field 7): the first SCHEDULED minus the
 * QUEUED timestamp, both engine-monotonic, as vLLM's own `queued_time` (vllm/v1/metrics/stats.py).
 * Malformed events are ignored: they only feed metrics.
 */
function queuedSecs(events: unknown): number | null {
  if (!Array.isArray(events)) return null;
  let queued: number | null = null;
  let scheduled: number | null = null;
  for (const e of events) {
    if (e === null || typeof e !== 'object') continue;
    const { type, timestamp } = e as { type?: unknown; timestamp?: unknown };
    if (typeof timestamp !== 'number') continue;
    if (type === EVENT_QUEUED && queued === null) queued = timestamp;
    else if (type === EVENT_SCHEDULED && scheduled === null) scheduled = timestamp;
  }
  return queued !== null && scheduled !== null && scheduled >= queued ? scheduled - queued : null;
}

function stopValue(v: unknown): number | string {
  if (typeof v !== 'string' && !Number.isInteger(v)) throw new WireDecodeError('stop_reason is neither int nor str');
  return v as number | string;
}

/** prefill_stats.num_cached_tokens; older layouts put a bare int around here, which we ignore. */
function cachedTokens(prefill: unknown): number | null {
  if (prefill === null || typeof prefill !== 'object' || Array.isArray(prefill)) return null;
  const n: unknown = (prefill as Record<string, unknown>)['num_cached_tokens'];
  return Number.isInteger(n) ? (n as number) : null;
}

const LOAD_NAMES = ['num_running_reqs', 'num_waiting_reqs', 'kv_cache_usage', 'prefix_cache_stats'];
const LOAD_KEYS = LOAD_NAMES.map((k) => Buffer.from(k, 'utf8'));
/** Error labels, built once (not a string per engine message). */
const LOAD_LABELS = LOAD_NAMES.map((k) => `scheduler_stats.${k}`);

/**
 * scheduler_stats: a 15-key map (vector O1b) on every step, of which the gateway needs 3. They are
 * picked out in place; the rest is skipped undecoded. Missing counters read as 0.
 */
function readLoad(cur: MsgpackCursor): EngineLoad {
  // The prefix counters stay undefined unless non-zero, but are declared here: one object shape.
  const load: EngineLoad = { numRunning: 0, numWaiting: 0, kvCacheUsage: 0, prefixQueries: undefined, prefixHits: undefined };
  const n = cur.mapLength('scheduler_stats');
  for (let i = 0; i < n; i++) {
    const k = cur.keyIndex(LOAD_KEYS, 'scheduler_stats');
    if (k === -1 || cur.nil()) {
      if (k === -1) cur.skip();
      continue;
    }
    if (k === 3) {
      readPrefixStats(cur, load);
      continue;
    }
    const v = cur.number(LOAD_LABELS[k]);
    if (k === 0) load.numRunning = v;
    else if (k === 1) load.numWaiting = v;
    else load.kvCacheUsage = v;
  }
  return load;
}

const PREFIX_KEYS = ['queries', 'hits'].map((k) => Buffer.from(k, 'utf8'));

/**
 * `prefix_cache_stats` {reset, requests, queries, hits, preempted_*}: the step's queries and hits,
 * read in place (it comes with every engine step); anything else in it is skipped.
 */
function readPrefixStats(cur: MsgpackCursor, load: EngineLoad): void {
  // Metrics only: a shape this reader does not know is skipped, never a decode failure.
  if (!cur.isMap()) {
    cur.skip();
    return;
  }
  const n = cur.mapLength('scheduler_stats.prefix_cache_stats');
  for (let i = 0; i < n; i++) {
    const k = cur.keyIndex(PREFIX_KEYS, 'scheduler_stats.prefix_cache_stats');
    if (k === -1 || cur.nil()) {
      if (k === -1) cur.skip();
      continue;
    }
    const v = cur.number(k === 0 ? 'prefix_cache_stats.queries' : 'prefix_cache_stats.hits');
    // Zero adds nothing to the totals: left absent, so a step without cache traffic decodes as before.
    if (v <= 0) continue;
    if (k === 0) load.prefixQueries = v;
    else load.prefixHits = v;
  }
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
