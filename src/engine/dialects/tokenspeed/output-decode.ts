/**
 * Gateway side: one message from the output PULL socket → OutputEvent (§6, §7).
 *
 * Tolerance follows SMG f8daa88: the tag is checked, the 8 columns must be equal-length lists,
 * the tail (engine_index, 4 load ints) defaults to 0 when absent, extra trailing elements and aux
 * frames are ignored. Anything else is a WireDecodeError, which drops this batch only.
 */
import type { EngineLoad, FinishReason, OutputEvent, RequestOutput, TokenLogprob } from '../../types.js';
import { WireDecodeError } from '../../types.js';
import { decodeMsgpack } from '../../msgpack/reader.js';
import {
  BATCH_ENGINE_INDEX_POS,
  BATCH_LOAD_POS,
  BATCH_MIN_LENGTH,
  BATCH_TAG,
  DEAD_SENTINEL,
  FINISH_RUNNING,
} from './wire-constants.js';

/** Column names, for error messages; index = array position − 1. */
const COLUMNS = [
  'rids',
  'output_ids',
  'finished_reasons',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'output_token_logprobs_val',
  'output_token_logprobs_idx',
] as const;

export function decodeTokenSpeedOutput(frames: Buffer[]): OutputEvent {
  const first = frames[0];
  if (first === undefined) throw new WireDecodeError('tokenspeed output: message has no frames');
  // The sentinel names no engine; with DP the first one means the whole group is going down.
  if (first.equals(DEAD_SENTINEL)) return { kind: 'dead' };
  return decodeBatch(decodeMsgpack(first, 'tokenspeed output'));
}

function decodeBatch(msg: unknown): OutputEvent {
  if (!Array.isArray(msg)) throw new WireDecodeError('tokenspeed output: batch is not an array');
  if (msg[0] !== BATCH_TAG) {
    throw new WireDecodeError(`tokenspeed output: unexpected tag ${JSON.stringify(msg[0])}`);
  }
  if (msg.length < BATCH_MIN_LENGTH) {
    throw new WireDecodeError(`tokenspeed output: batch has ${msg.length} elements, need ≥ ${BATCH_MIN_LENGTH}`);
  }
  const cols = COLUMNS.map((name, i) => list(msg[i + 1], name));
  const n = cols[0].length;
  cols.forEach((c, i) => {
    if (c.length !== n) {
      throw new WireDecodeError(`tokenspeed output: ragged column ${COLUMNS[i]} (${c.length} vs ${n} rids)`);
    }
  });
  const outputs: RequestOutput[] = new Array<RequestOutput>(n);
  for (let i = 0; i < n; i++) outputs[i] = decodeRow(cols, i);
  const tail = (pos: number, name: string): number => (msg.length > pos ? int(msg[pos], name) : 0);
  const engineIndex = tail(BATCH_ENGINE_INDEX_POS, 'engine_index');
  const numRunning = tail(BATCH_LOAD_POS, 'num_running');
  const numWaiting = tail(BATCH_LOAD_POS + 1, 'num_waiting');
  const kvActive = tail(BATCH_LOAD_POS + 2, 'kv_active_pages');
  const kvTotal = tail(BATCH_LOAD_POS + 3, 'kv_total_pages');
  // kv_total_pages 0 means "no snapshot": report no load rather than a fabricated idle engine.
  const load: EngineLoad | null =
    kvTotal > 0 ? { numRunning, numWaiting, kvCacheUsage: kvActive / kvTotal, prefixQueries: undefined, prefixHits: undefined } : null;
  // TokenSpeed has no out-of-band finished set: every finish rides its own row (§12).
  return { kind: 'batch', engineIndex, outputs, load, finishedRequests: null };
}

/** One row; cell names for error messages are only built when a cell is bad (hot path). */
function decodeRow(cols: unknown[][], i: number): RequestOutput {
  const requestId = cols[0][i];
  if (typeof requestId !== 'string') throw new WireDecodeError(`tokenspeed output: rids[${i}] is not a string`);
  const newTokenIds = cellIntList(cols[1][i], 'output_ids', i);
  const wireFinish = cols[2][i];
  if (typeof wireFinish !== 'string') {
    throw new WireDecodeError(`tokenspeed output: finished_reasons[${i}] is not a string`);
  }
  const finish = mapFinish(wireFinish);
  const promptTokens = cellInt(cols[3][i], 'prompt_tokens', i);
  const completionTokens = cellInt(cols[4][i], 'completion_tokens', i);
  const cachedTokens = cellInt(cols[5][i], 'cached_tokens', i);
  const logprobs = decodeLogprobs(cols[6][i], cols[7][i], i);
  return {
    requestId,
    newTokenIds,
    finish,
    // TokenSpeed never reports which stop matched; SMG shows no matched_stop for it either.
    stopReason: null,
    logprobs,
    cachedTokens,
    errorMessage: finish === 'abort' ? abortMessage(completionTokens) : null,
    promptTokens,
    completionTokens,
    // The engine keeps the EOS / stop-id / grammar-final token as the last id of the finishing
    // row and counts it (§8). We pass it through untouched (usage and logprobs include it) and
    // flag it, so the gateway can hide it even when the engine's EOS set (eom_id, tokenizer eos)
    // is wider than the one the gateway knows. Stop strings would break this, but we never send any.
    endsWithStopToken: finish === 'stop' && newTokenIds.length > 0,
  };
}

/**
 * SMG keeps stop/length/abort, treats "error" as an engine error, and maps anything unknown to
 * stop (with a warning upstream; the dialect has no logger and the pipeline sees `stop`).
 */
function mapFinish(wire: string): FinishReason | null {
  switch (wire) {
    case FINISH_RUNNING:
      return null;
    case 'stop':
    case 'length':
    case 'abort':
    case 'error':
      return wire;
    default:
      return 'stop';
  }
}

/**
 * The abort message is not on the wire (§6.2), so name the likely causes. Errata 2: an abort the
 * gateway did not request must become a client error, and this text is what the client sees.
 */
function abortMessage(completionTokens: number): string {
  if (completionTokens === 0) {
    return (
      'TokenSpeed rejected the request at admission (invalid sampling parameters, logprobs without ' +
      '--enable-output-logprobs, a grammar without --grammar-backend xgrammar, or an invalid grammar)'
    );
  }
  return 'TokenSpeed aborted the request during generation (see engine logs)';
}

function decodeLogprobs(valRaw: unknown, idxRaw: unknown, i: number): TokenLogprob[] | null {
  const vals = cellList(valRaw, 'output_token_logprobs_val', i);
  const ids = cellIntList(idxRaw, 'output_token_logprobs_idx', i);
  if (vals.length !== ids.length) {
    throw new WireDecodeError(`tokenspeed output: row ${i} has ${vals.length} logprobs for ${ids.length} ids`);
  }
  if (vals.length === 0) return null;
  return vals.map((v, j) => {
    if (typeof v !== 'number') throw new WireDecodeError(`tokenspeed output: logprob [${i}][${j}] is not a number`);
    // Only the sampled token's logprob exists on this wire: no rank, no alternatives (§4.5).
    return { tokenId: ids[j], logprob: v, rank: null, top: [] };
  });
}

function list(v: unknown, name: string): unknown[] {
  if (!Array.isArray(v)) throw new WireDecodeError(`tokenspeed output: ${name} is not a list`);
  return v;
}

function int(v: unknown, name: string): number {
  if (!isInt(v)) throw new WireDecodeError(`tokenspeed output: ${name} is not an integer`);
  return v;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

// Per-row cells: `column[i]` names the cell in errors, built only on failure.

function cellList(v: unknown, column: string, i: number): unknown[] {
  return Array.isArray(v) ? v : list(v, `${column}[${i}]`);
}

function cellIntList(v: unknown, column: string, i: number): number[] {
  const l = cellList(v, column, i);
  for (let j = 0; j < l.length; j++) if (!isInt(l[j])) int(l[j], `${column}[${i}]`);
  return l as number[];
}

function cellInt(v: unknown, column: string, i: number): number {
  return isInt(v) ? v : int(v, `${column}[${i}]`);
}
