/**
 * A cap on request-body bytes held at once, across all requests. --max-payload-size bounds one
 * body; without this, eight concurrent 28 MB bodies took the gateway to 4.6 GB and /health waited
 * 34 s. A request is charged its Content-Length (a chunked body: the per-body limit, as it may grow
 * to that) from before its body is read until its handler has answered (for a stream: once the
 * prompt is prepared and the first bytes are on their way, when the body text is garbage), and a
 * request that would go past the budget is refused 503 with Retry-After; its body is read and
 * dropped as it arrives (never held) so that the client, still sending, gets the answer. The
 * budget is four maximum bodies, so any single body that passes the size limit is always admitted
 * when nothing else is in flight.
 */
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { collectSoon } from '../../util/idle-gc.js';
import { gatewayError } from '../errors.js';
import type { AppEnv } from './env.js';

/** How many maximum-size bodies may be in flight together. */
export const BODY_BUDGET_BODIES = 4;

/** Bodies from this size on are followed by one idle GC (util/idle-gc.ts). */
const BIG_BODY_BYTES = 4 * 1024 * 1024;

export function bodyBudget(maxBodyBytes: number, budgetBytes = BODY_BUDGET_BODIES * maxBodyBytes): MiddlewareHandler<AppEnv> {
  let inFlight = 0;
  const refuse = async (incoming: IncomingMessage | undefined, charge: number): Promise<Response> => {
    // The body is read and thrown away before the 503, so the client gets it: refused unread,
    // the connection would be cut once @hono/node-server's 500 ms drain is over, and a client
    // still sending a big body sees EPIPE instead of the status. Nothing is kept meanwhile.
    if (incoming) await discardBody(incoming);
    return gatewayError(
      503,
      'request_bodies_over_budget',
      `Too many request bytes in flight (${inFlight} of ${budgetBytes} bytes held, this body is ${charge}); retry shortly`,
      null,
      { 'Retry-After': '1' },
    );
  };
  // Not async on the way through: the charged path adds one `finally`, not an async frame and an await.
  return (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const headers = c.req.raw.headers;
    const length = headers.get('content-length');
    const declared = length !== null && !headers.has('transfer-encoding') ? Number.parseInt(length, 10) : maxBodyBytes;
    const charge = Number.isFinite(declared) && declared > 0 ? Math.min(declared, maxBodyBytes) : 0;
    if (charge === 0) return next();
    if (inFlight + charge > budgetBytes && inFlight > 0) return refuse(c.env?.incoming, charge);
    inFlight += charge;
    return next().finally(() => {
      inFlight -= charge;
      if (charge >= BIG_BODY_BYTES) collectSoon();
    });
  };
}

/** Reads `incoming` to its end, keeping nothing; gives up after `timeoutMs` (the request timeout cuts it anyway). */
function discardBody(incoming: IncomingMessage, timeoutMs = 30_000): Promise<void> {
  if (incoming.readableEnded || incoming.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      incoming.off('end', done);
      incoming.off('close', done);
      incoming.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
    incoming.on('end', done);
    incoming.on('close', done);
    incoming.on('error', done);
    incoming.resume();
  });
}
