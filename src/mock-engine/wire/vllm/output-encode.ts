/**
 * Engine side of the output plane, for fake engines: EngineCoreOutputs envelopes (8 fields) with
 * EngineCoreOutput rows (14 fields), byte-compatible with what msgspec writes for vLLM 0.27
 * (vectors O1…O10). Test hooks can append extra trailing fields, as newer engines do.
 */
import type { TokenLogprob } from '../../../engine/types.js';
import { MsgpackWriter, encodeStr } from '../../../engine/msgpack/writer.js';
import { ENGINE_CORE_OUTPUT_FIELDS, ENGINE_CORE_OUTPUTS_FIELDS, INLINE_ARRAY_THRESHOLD } from '../../../engine/dialects/vllm/constants.js';
import { writeLogprobRows } from './logprobs-write.js';

/** A scheduler event on a request's first output (1 QUEUED, 2 SCHEDULED, 3 PREEMPTED). */
export interface WireEvent {
  type: number;
  /** Engine-monotonic seconds. */
  timestamp: number;
}

export interface WirePrefillStats {
  numPromptTokens: number;
  numComputedTokens: number;
  numCachedTokens: number;
  numLocalCachedTokens: number;
  numExternalCachedTokens: number;
  numCacheCreationTokens: number;
}

export interface WirePrefixCacheStats {
  reset: boolean;
  requests: number;
  queries: number;
  hits: number;
  preemptedRequests: number;
  preemptedQueries: number;
  preemptedHits: number;
}

/** The SchedulerStats fields a fake engine varies; the rest are written as vLLM's idle values. */
export interface WireSchedulerStats {
  numRunningReqs: number;
  numWaitingReqs: number;
  numSkippedWaitingReqs?: number;
  stepCounter?: number;
  currentWave?: number;
  kvCacheUsage: number;
  prefixCacheStats?: WirePrefixCacheStats;
}

export interface WireOutput {
  requestId: string;
  newTokenIds: readonly number[];
  /** Sample logprobs for exactly these tokens (numpy dtype spellings). */
  logprobs?: readonly TokenLogprob[] | null;
  /** Prompt logprobs, first output only (torch dtype spellings). */
  promptLogprobs?: readonly TokenLogprob[] | null;
  /** Raw FinishReason code (0 STOP … 4 REPETITION); any int, so tests can send unknown ones. */
  finishReason?: number | null;
  stopReason?: number | string | null;
  events?: readonly WireEvent[] | null;
  prefillStats?: WirePrefillStats | null;
  numNansInLogits?: number;
  /** Test hook: written after the 14 known fields, like fields of a newer vLLM. */
  extraFields?: readonly unknown[];
}

export interface WireUtilityOutput {
  callId: number | bigint;
  /** Non-null makes it a failure reply (result is then nil). */
  failure: string | null;
  result?: unknown;
}

export interface WireOutputs {
  engineIndex: number;
  outputs: readonly WireOutput[];
  schedulerStats?: WireSchedulerStats | null;
  /** Engine-monotonic seconds. */
  timestamp: number;
  utility?: WireUtilityOutput | null;
  finishedRequests?: readonly string[] | null;
  waveComplete?: number | null;
  startWave?: number | null;
  extraFields?: readonly unknown[];
}

export interface EncodeOutputsOptions {
  /** Arrays of at least this many bytes go to aux frames (default 256, like vLLM). */
  inlineThreshold?: number;
}

const w = new MsgpackWriter(4096);

/** Encode one message: `[msgpack EngineCoreOutputs, aux frame 1, aux frame 2, …]`. */
export function encodeOutputs(msg: WireOutputs, opts: EncodeOutputsOptions = {}): Buffer[] {
  const threshold = opts.inlineThreshold ?? INLINE_ARRAY_THRESHOLD;
  const aux: Buffer[] = [];
  const extra = msg.extraFields ?? [];
  w.reset().arrayHeader(ENGINE_CORE_OUTPUTS_FIELDS + extra.length);
  w.int(msg.engineIndex);
  w.arrayHeader(msg.outputs.length);
  for (const o of msg.outputs) writeOutput(o, aux, threshold);
  if (msg.schedulerStats) writeSchedulerStats(msg.schedulerStats);
  else w.nil();
  w.float64(msg.timestamp);
  if (msg.utility) writeUtility(msg.utility);
  else w.nil();
  if (msg.finishedRequests) w.strArray(msg.finishedRequests);
  else w.nil();
  optInt(msg.waveComplete);
  optInt(msg.startWave);
  for (const v of extra) w.value(v);
  return [w.toBuffer(), ...aux];
}

function optInt(v: number | null | undefined): void {
  if (v === null || v === undefined) w.nil();
  else w.int(v);
}

function writeOutput(o: WireOutput, aux: Buffer[], threshold: number): void {
  const extra = o.extraFields ?? [];
  w.arrayHeader(ENGINE_CORE_OUTPUT_FIELDS + extra.length);
  w.str(o.requestId); // 0
  w.intArray(o.newTokenIds); // 1
  if (o.logprobs) writeLogprobRows(w, o.logprobs, aux, 'numpy', threshold); // 2
  else w.nil();
  if (o.promptLogprobs) writeLogprobRows(w, o.promptLogprobs, aux, 'torch', threshold); // 3
  else w.nil();
  w.nil(); // 4 pooling_output
  optInt(o.finishReason); // 5
  if (o.stopReason === null || o.stopReason === undefined) w.nil(); // 6
  else if (typeof o.stopReason === 'string') w.str(o.stopReason);
  else w.int(o.stopReason);
  if (o.events) writeEvents(o.events); // 7
  else w.nil();
  w.nil().nil().nil(); // 8 kv_transfer_params, 9 ec_transfer_params, 10 trace_headers
  if (o.prefillStats) writePrefillStats(o.prefillStats); // 11
  else w.nil();
  w.nil(); // 12 routed_experts
  w.int(o.numNansInLogits ?? 0); // 13
  for (const v of extra) w.value(v);
}

const K_TYPE = encodeStr('type');
const K_TIMESTAMP = encodeStr('timestamp');

function writeEvents(events: readonly WireEvent[]): void {
  w.arrayHeader(events.length);
  for (const e of events) w.mapHeader(2).raw(K_TYPE).int(e.type).raw(K_TIMESTAMP).float64(e.timestamp);
}

function writePrefillStats(p: WirePrefillStats): void {
  w.mapHeader(6);
  w.str('num_prompt_tokens').int(p.numPromptTokens);
  w.str('num_computed_tokens').int(p.numComputedTokens);
  w.str('num_cached_tokens').int(p.numCachedTokens);
  w.str('num_local_cached_tokens').int(p.numLocalCachedTokens);
  w.str('num_external_cached_tokens').int(p.numExternalCachedTokens);
  w.str('num_cache_creation_tokens').int(p.numCacheCreationTokens);
}

/** The full SchedulerStats dataclass map (15 keys, vector O1b order): SMG rejects partial maps. */
function writeSchedulerStats(s: WireSchedulerStats): void {
  const pc = s.prefixCacheStats;
  w.mapHeader(15);
  w.str('num_running_reqs').int(s.numRunningReqs);
  w.str('num_waiting_reqs').int(s.numWaitingReqs);
  w.str('num_skipped_waiting_reqs').int(s.numSkippedWaitingReqs ?? 0);
  w.str('step_counter').int(s.stepCounter ?? 0);
  w.str('current_wave').int(s.currentWave ?? 0);
  w.str('kv_cache_usage').float64(s.kvCacheUsage);
  w.str('prefix_cache_stats').mapHeader(7);
  w.str('reset').bool(pc?.reset ?? false);
  w.str('requests').int(pc?.requests ?? 0);
  w.str('queries').int(pc?.queries ?? 0);
  w.str('hits').int(pc?.hits ?? 0);
  w.str('preempted_requests').int(pc?.preemptedRequests ?? 0);
  w.str('preempted_queries').int(pc?.preemptedQueries ?? 0);
  w.str('preempted_hits').int(pc?.preemptedHits ?? 0);
  w.str('connector_prefix_cache_stats').nil();
  w.str('kv_cache_eviction_events').arrayHeader(0);
  w.str('spec_decoding_stats').nil();
  w.str('kv_connector_stats').nil();
  w.str('waiting_lora_adapters').mapHeader(0);
  w.str('running_lora_adapters').mapHeader(0);
  w.str('cudagraph_stats').nil();
  w.str('perf_stats').nil();
}

/** UtilityOutput `[call_id, failure_message, result]`; a success wraps the value as `[nil, value]`. */
function writeUtility(u: WireUtilityOutput): void {
  w.arrayHeader(3);
  if (typeof u.callId === 'bigint') w.bigint(u.callId);
  else w.int(u.callId);
  if (u.failure !== null) {
    w.str(u.failure).nil();
  } else {
    w.nil().arrayHeader(2).nil().value(u.result ?? null);
  }
}
