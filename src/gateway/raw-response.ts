/**
 * The Node response behind a request, offered to the protocol front-ends as a `RawResponse` so a
 * stream writes its frames to the socket directly (no web ReadableStream, no TextEncoder per
 * frame). The handler then returns node-server's "already sent" marker.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { RawResponse } from '../api/types.js';

/** A class, not an object of closures: one is made per request. */
class NodeRawResponse implements RawResponse {
  constructor(private readonly res: ServerResponse) {}

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  /** Node marks a response `destroyed` when its connection closes, `writableEnded` once ended. */
  get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }

  get sent(): Response {
    return RESPONSE_ALREADY_SENT;
  }

  /** Node keeps the head until the first write (or flushHeaders), then sends them together. */
  writeHead(status: number, headers: Record<string, string>): void {
    this.res.writeHead(status, headers);
  }

  flushHead(): void {
    this.res.flushHeaders();
  }

  write(chunk: Buffer): boolean {
    // Corked around the write so it reaches the socket now, not at Node's next-tick uncork: `idle`
    // then tells right away whether the socket took it all.
    this.res.cork();
    const ok = this.res.write(chunk);
    this.res.uncork();
    return ok;
  }

  end(chunk?: Buffer | string): void {
    if (chunk === undefined) this.res.end();
    else this.res.end(chunk);
  }

  get idle(): boolean {
    return this.res.writableLength === 0;
  }

  onDrain(cb: () => void): void {
    this.res.on('drain', cb);
  }

  destroy(): void {
    this.res.destroy();
  }
}

export function rawResponse(res: ServerResponse): RawResponse {
  return new NodeRawResponse(res);
}

/** Runs `done` once, when the Node response is over (finished or the connection closed). */
export function onResponseClosed(res: ServerResponse, done: () => void): void {
  if (res.writableFinished || res.destroyed) done();
  else res.once('close', done);
}
