/**
 * The Node response behind a request, offered to the protocol front-ends as a `RawResponse` so a
 * stream writes its frames to the socket directly (no web ReadableStream, no TextEncoder per
 * frame). The handler then returns node-server's "already sent" marker.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { RawResponse } from '../api/types.js';

/** HTTP/1.1's last chunk (no trailers), as Node's end() writes it for a chunked body. */
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

/** Node's own fields OutgoingMessage#write reads (lib/_http_outgoing.js, Node 20). */
type InternalResponse = ServerResponse & { _headerSent?: boolean; outputData?: unknown[] };

/** A class, not an object of closures: one is made per request. */
class NodeRawResponse implements RawResponse {
  /** The writer frames the chunks (chunkSelf): Node writes the bytes as they are. */
  private framed = false;

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

  /**
   * Node frames each write of a chunked body as `<hex>\r\n`, the bytes, `\r\n`: four buffers
   * through OutgoingMessage#_send and one writev, per write. A writer that has its bytes framed
   * already (FrameBytes.take(true): the same bytes) hands over one buffer, and Node sends it as
   * it is once `chunkedEncoding` is off: OutgoingMessage's write() and end() read that flag only
   * to decide whether to add the framing (lib/_http_outgoing.js write_ and end; @types/node
   * declares it). At 1,000 paced streams that is one of Node's _send/_writeRaw/Writable#write
   * chains per token instead of four (issue 30). Only a body Node chose to chunk (writeHead set
   * the flag: not HTTP/1.0, not a HEAD or 204/304 answer) is taken over.
   */
  chunkSelf(): boolean {
    // Only writeHead sets the flag (false before): true means the head is stored, chunked.
    if (this.res.chunkedEncoding !== true) return false;
    this.res.chunkedEncoding = false;
    this.framed = true;
    return true;
  }

  write(chunk: Buffer): boolean {
    const res = this.res as InternalResponse;
    const socket = res.socket as (Socket & { _httpMessage?: unknown }) | null;
    // A self-framed chunk once the head is out: straight to the socket. That is all Node's write
    // would do with it (OutgoingMessage#_writeRaw: conn.write while the connection is this
    // response's and writable; nothing of its own queued), without its cork, _send and the corked
    // Writable's buffering of the chunk around it (issue 30's paced streams: one write per
    // stream per engine step).
    if (this.framed && res._headerSent === true && socket && socket._httpMessage === res && socket.writable && res.outputData?.length === 0) {
      const ok = socket.write(chunk);
      // Node emits the response's 'drain' only for its own writes (kNeedDrain): this one waits on the socket.
      if (!ok) socket.once('drain', () => res.emit('drain'));
      return ok;
    }
    // Corked around the write so it reaches the socket now, not at Node's next-tick uncork: `idle`
    // then tells right away whether the socket took it all.
    this.res.cork();
    const ok = this.res.write(chunk);
    this.res.uncork();
    return ok;
  }

  end(chunk?: Buffer | string): void {
    if (this.framed) {
      // The last chunk, which Node no longer adds; with the final data in one write.
      if (chunk === undefined) {
        this.res.end(LAST_CHUNK);
        return;
      }
      this.res.cork();
      this.res.write(chunk);
      this.res.end(LAST_CHUNK);
      return;
    }
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

const CLOSE_HOOKS = Symbol('smg.closeHooks');
type Hooked = ServerResponse & { [CLOSE_HOOKS]?: Array<() => void> };

/**
 * Runs `done` once, when the Node response is over (finished or the connection closed).
 *
 * Every layer that waits for a response's end (close signal, accounting, access log, concurrency
 * permit) shares one 'close' listener per response, called in the order they asked, as their own
 * `once` listeners were: a `once` each cost a wrapper to make and to remove per request.
 */
export function onResponseClosed(res: ServerResponse, done: () => void): void {
  if (res.writableFinished || res.destroyed) done();
  else onClose(res, done);
}

/** `f` on the response's 'close' event, through the one shared listener (as `res.once('close', f)`). */
export function onClose(res: ServerResponse, done: () => void): void {
  const hooked = res as Hooked;
  const hooks = hooked[CLOSE_HOOKS];
  if (hooks) {
    hooks.push(done);
    return;
  }
  hooked[CLOSE_HOOKS] = [done];
  res.once('close', () => {
    const all = hooked[CLOSE_HOOKS] ?? [];
    // Asked for after this: a listener of its own, as `once` added after the event would be.
    hooked[CLOSE_HOOKS] = undefined;
    for (const f of all) f();
  });
}
