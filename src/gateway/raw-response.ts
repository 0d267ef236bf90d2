/**
 * The Node response behind a request, offered to the protocol front-ends as a `RawResponse` so a
 * stream writes its frames to the socket directly (no web ReadableStream, no TextEncoder per
 * frame). The handler then returns node-server's "already sent" marker.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { RawResponse } from '../api/types.js';

export function rawResponse(res: ServerResponse): RawResponse {
  let closed = false;
  res.once('close', () => (closed = true));
  return {
    get headersSent() {
      return res.headersSent;
    },
    get closed() {
      return closed || res.writableEnded || res.destroyed;
    },
    writeHead(status, headers) {
      res.writeHead(status, headers);
      // The head goes out at once, so a client sees the 200 before the first token.
      res.flushHeaders();
    },
    write: (chunk) => res.write(chunk),
    end(chunk) {
      if (chunk === undefined) res.end();
      else res.end(chunk);
    },
    cork: () => res.cork(),
    uncork: () => res.uncork(),
    onDrain: (cb) => void res.on('drain', cb),
    onClose: (cb) => void res.once('close', cb),
    sent: RESPONSE_ALREADY_SENT,
  };
}

/** Runs `done` once, when the Node response is over (finished or the connection closed). */
export function onResponseClosed(res: ServerResponse, done: () => void): void {
  if (res.writableFinished || res.destroyed) done();
  else res.once('close', done);
}
