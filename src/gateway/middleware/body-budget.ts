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

/**
 * The bytes in flight, shared by everything that admits request bodies: the Hono layer below and
 * the direct front of the inference routes (gateway/direct-front.ts) charge the same count.
 */
export class BodyBudget {
  inFlight = 0;

  constructor(
    readonly maxBodyBytes: number,
    readonly budgetBytes = BODY_BUDGET_BODIES * maxBodyBytes,
  ) {}

  /** What a body is charged: its Content-Length (a chunked or unsized body: the per-body limit), 0 = nothing. */
  chargeOf(contentLength: string | null | undefined, chunked: boolean): number {
    const declared = contentLength !== null && contentLength !== undefined && !chunked ? Number.parseInt(contentLength, 10) : this.maxBodyBytes;
    return Number.isFinite(declared) && declared > 0 ? Math.min(declared, this.maxBodyBytes) : 0;
  }

  /** Whether a body of `charge` bytes fits now (any body fits when nothing else is in flight). */
  fits(charge: number): boolean {
    return !(this.inFlight + charge > this.budgetBytes && this.inFlight > 0);
  }

  /** Charges `charge` until `answered` settles; its result passes through. */
  hold<T>(charge: number, answered: Promise<T>): Promise<T> {
    this.inFlight += charge;
    return answered.finally(() => {
      this.inFlight -= charge;
      if (charge >= BIG_BODY_BYTES) collectSoon();
    });
  }
}

const shared = new WeakMap<object, BodyBudget>();

/** The one budget of `owner` (a gateway's context): every front of that gateway charges it. */
export function sharedBodyBudget(owner: object, maxBodyBytes: number): BodyBudget {
  let b = shared.get(owner);
  if (!b) shared.set(owner, (b = new BodyBudget(maxBodyBytes)));
  return b;
}

export function bodyBudget(maxBodyBytes: number, budgetBytes = BODY_BUDGET_BODIES * maxBodyBytes, budget = new BodyBudget(maxBodyBytes, budgetBytes)): MiddlewareHandler<AppEnv> {
  const refuse = async (incoming: IncomingMessage | undefined, charge: number): Promise<Response> => {
    // The body is read and thrown away before the 503, so the client gets it: refused unread,
    // the connection would be cut once @hono/node-server's 500 ms drain is over, and a client
    // still sending a big body sees EPIPE instead of the status. Nothing is kept meanwhile.
    if (incoming) await discardBody(incoming);
    return gatewayError(
      503,
      'request_bodies_over_budget',
      `Too many request bytes in flight (${budget.inFlight} of ${budget.budgetBytes} bytes held, this body is ${charge}); retry shortly`,
      null,
      { 'Retry-After': '1' },
    );
  };
  // Not async on the way through: the charged path adds one `finally`, not an async frame and an await.
  return (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const headers = c.req.raw.headers;
    const charge = budget.chargeOf(headers.get('content-length'), headers.has('transfer-encoding'));
    if (charge === 0) return next();
    if (!budget.fits(charge)) return refuse(c.env?.incoming, charge);
    return budget.hold(charge, next());
  };
}

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
