/**
 * Engine side: an output batch as the real engine writes it (§6.1): the tagged positional
 * `BatchTokenIDOutSlim`, columns then tail, logprobs as float64. One call = one PUSH frame.
 */
import { MsgpackWriter } from '../../../engine/msgpack/writer.js';
import { BATCH_TAG, DEAD_SENTINEL, type BatchArity } from '../../../engine/dialects/tokenspeed/wire-constants.js';
import type { TsLoadSnapshot, TsOutputBatch, TsOutputRow } from './types.js';

const NO_LOAD: TsLoadSnapshot = { numRunning: 0, numWaiting: 0, kvActivePages: 0, kvTotalPages: 0 };

const writer = new MsgpackWriter(4096);

/**
 * @param arity 10 = current main (default), 9 = engines before 2026-08-12 (no engine_index),
 *   14 = the load-snapshot branch (engine_index + 4 load ints; missing load = zeros = "none").
 */
export function encodeTokenSpeedBatch(batch: TsOutputBatch, arity: BatchArity = 10): Buffer {
  const rows = batch.rows;
  const w = writer.reset();
  w.arrayHeader(arity);
  w.str(BATCH_TAG);
  column(w, rows, (r) => w.str(r.rid));
  column(w, rows, (r) => w.intArray(r.outputIds));
  column(w, rows, (r) => w.str(r.finishedReason));
  column(w, rows, (r) => w.int(r.promptTokens));
  column(w, rows, (r) => w.int(r.completionTokens));
  column(w, rows, (r) => w.int(r.cachedTokens));
  column(w, rows, (r) => {
    w.arrayHeader(r.logprobVals.length);
    // Python floats are always float64 on the wire, even for integral values like 0.0.
    for (const v of r.logprobVals) w.float64(v);
  });
  column(w, rows, (r) => w.intArray(r.logprobIdx));
  if (arity >= 10) w.int(batch.engineIndex);
  if (arity === 14) {
    const load = batch.load ?? NO_LOAD;
    w.int(load.numRunning).int(load.numWaiting).int(load.kvActivePages).int(load.kvTotalPages);
  }
  return w.toBuffer();
}

function column(w: MsgpackWriter, rows: TsOutputRow[], each: (r: TsOutputRow) => void): void {
  w.arrayHeader(rows.length);
  for (const r of rows) each(r);
}

/** The death frame each rank sends best-effort from its cleanup path (§7). */
export function tokenspeedDeathFrame(): Buffer {
  return Buffer.from(DEAD_SENTINEL);
}
