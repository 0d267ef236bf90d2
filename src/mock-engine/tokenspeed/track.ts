/**
 * Per-request output bookkeeping of a TokenSpeed rank: which tokens are still undelivered, and
 * when a row is due (wire-tokenspeed §6.3). The scheduler samples one token per step; this decides
 * whether that step shows the request in its batch, so no token is ever lost, whatever the cadence.
 */
import type { WireFinish } from '../../engine/dialects/tokenspeed/index.js';
import type { TsOutputRow } from '../wire/tokenspeed/index.js';

/** Non-streaming requests still get a row at the 1st token and every this-many tokens. */
export const NON_STREAM_ROW_EVERY = 50;

export interface TsTrack {
  rid: string;
  stream: boolean;
  /** Per-request `stream_interval` or else the engine's `--stream-interval`; 0 crashes the engine. */
  interval: number;
  /** min(max_new_tokens ?? 2^30, max_model_len − 2 − prompt), at least 1 (§4.7). */
  effectiveMax: number;
  promptTokens: number;
  returnLogprob: boolean;
  completion: number;
  pendingIds: number[];
  pendingLogprobs: number[];
}

/** A streaming row cadence with interval 0 divides by zero inside the real scheduler loop. */
export class StreamIntervalZero extends Error {
  override name = 'ZeroDivisionError';
  constructor() {
    super('integer division or modulo by zero (stream_interval = 0)');
  }
}

export function effectiveMax(maxNewTokens: number | null, maxModelLen: number, promptLen: number): number {
  const cap = Math.min(maxNewTokens ?? 2 ** 30, maxModelLen - 2 - promptLen);
  // max_new_tokens 0 (or no room left) still yields one token, finished as `length`.
  return Math.max(1, cap);
}

export function addTokens(t: TsTrack, ids: number[], logprobs: number[] | null): void {
  t.completion += ids.length;
  t.pendingIds.push(...ids);
  if (t.returnLogprob) t.pendingLogprobs.push(...(logprobs ?? ids.map(() => 0)));
}

/**
 * TokenSpeed checks the length limit before EOS (Errata 3): an EOS sampled as the last allowed
 * token finishes as `length`, where the shared scheduler (vLLM's order) says stop.
 */
export function wireFinish(t: TsTrack, schedulerSaidLength: boolean): WireFinish {
  return schedulerSaidLength || t.completion >= t.effectiveMax ? 'length' : 'stop';
}

export function rowDue(t: TsTrack, terminal: boolean): boolean {
  if (terminal) return true;
  if (!t.stream) return t.completion === 1 || t.completion % NON_STREAM_ROW_EVERY === 0;
  if (t.interval === 0) throw new StreamIntervalZero();
  return t.interval === 1 || t.completion % t.interval === 1;
}

/** The row for everything undelivered; the pending buffers start over. */
export function takeRow(t: TsTrack, finish: WireFinish): TsOutputRow {
  const ids = t.pendingIds;
  const vals = t.pendingLogprobs;
  t.pendingIds = [];
  t.pendingLogprobs = [];
  return {
    rid: t.rid,
    outputIds: ids,
    finishedReason: finish,
    promptTokens: t.promptTokens,
    completionTokens: t.completion,
    // No prefix cache is simulated.
    cachedTokens: 0,
    logprobVals: t.returnLogprob ? vals : [],
    logprobIdx: t.returnLogprob ? [...ids] : [],
  };
}
