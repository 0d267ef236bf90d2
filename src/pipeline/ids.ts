import { randomFillSync } from 'node:crypto';
import type { RuntimeType } from '../engine/types.js';

/** Random bytes drawn 4 KiB at a time: one getrandom call per 256 ids instead of one per id. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** A time-ordered UUIDv7 (RFC 9562), hyphenated. */
export function uuidv7(now = Date.now()): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = Buffer.from(pool.subarray(poolAt, poolAt + 16));
  poolAt += 16;
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The backend request id of one HTTP request (request-pipeline §2.1): the client's `rid` verbatim,
 * else the middleware request id with a UUIDv7 appended, so two live requests never share a wire id
 * even when clients reuse an x-request-id.
 */
export function backendRequestId(rid: string | undefined, middlewareId: string): string {
  return rid ?? `${middlewareId}-${uuidv7()}`;
}

/**
 * The base of the engine-side ids of one HTTP request. TokenSpeed remembers an ABORT for a rid it
 * does not know (e.g. one that just finished) for 300 s and silently drops a later ADD with that
 * rid (wire-tokenspeed §5), so a client-chosen rid is never sent to it verbatim: reusing it would
 * hang the next request. Responses keep showing `wireId`.
 */
export function engineRequestBase(wireId: string, rid: string | undefined, runtime: RuntimeType): string {
  return runtime === 'tokenspeed' && rid !== undefined ? `${wireId}-${uuidv7()}` : wireId;
}
