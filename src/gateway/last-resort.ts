/**
 * The process-wide last resort for a promise rejection nobody handled. Every path a request's
 * failure can take is contained where it happens (the engine output reader, the SSE writer, the
 * flush scheduler, the handlers' error responses); a rejection that still slips through belongs to
 * one request's code, and Node's default for it (since v15) is to end the process, taking every
 * other request and, under `smg serve`, the engines' gateway with it. It is logged with its stack
 * as a bug instead. Uncaught synchronous exceptions keep Node's default (exit): after one, the
 * process state cannot be trusted.
 */
import type { Logger } from '../util/logger.js';

let installed = false;

export function installRejectionGuard(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    const err = reason instanceof Error ? reason : new Error(String(reason));
    logger.error({ error: err.message, stack: err.stack }, 'BUG: unhandled promise rejection (the request it belonged to has failed; the gateway goes on)');
  });
}
