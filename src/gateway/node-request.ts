/**
 * The client's request as the direct front (direct-front.ts) hands it to a handler: Node's
 * IncomingMessage read the way @hono/node-server's Request reads it, without a web Request.
 * Handlers read the headers and the body text (api/types.ts InferenceRequest), nothing else.
 */
import type { IncomingMessage } from 'node:http';
import type { InferenceRequest } from '../api/types.js';

const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;

function trimHttpWhitespace(v: string): string {
  let start = 0;
  let end = v.length;
  while (start < end && isHttpWhitespace(v.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(v.charCodeAt(end - 1))) end--;
  return start === 0 && end === v.length ? v : v.slice(start, end);
}

/**
 * A header as web Headers give it: every field of that name, trimmed, joined with ", " ("; " for
 * Cookie). From the raw list, because Node keeps only the first of some duplicated fields
 * (Content-Type among them) where Headers keep them all.
 */
class NodeHeaders {
  constructor(private readonly raw: readonly string[]) {}

  get(name: string): string | null {
    const lower = name.toLowerCase();
    const separator = lower === 'cookie' ? '; ' : ', ';
    let value: string | null = null;
    const raw = this.raw;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i];
      if (n.length === lower.length && n.toLowerCase() === lower) {
        const v = trimHttpWhitespace(raw[i + 1]);
        value = value === null ? v : value + separator + v;
      }
    }
    return value;
  }
}

/** UTF-8 with a leading BOM dropped, bad bytes as U+FFFD: what Request.text() gives. */
const decoder = new TextDecoder();

export class NodeRequest implements InferenceRequest {
  private headerView: NodeHeaders | undefined;
  private read = false;

  constructor(private readonly incoming: IncomingMessage) {}

  get headers(): NodeHeaders {
    return (this.headerView ??= new NodeHeaders(this.incoming.rawHeaders));
  }

  /**
   * The body as text, once (a second read fails as a used Request body does). A client gone before
   * the body's end fails it with the adapter's message; a body that had fully arrived is kept.
   */
  text(): Promise<string> {
    if (this.read) return Promise.reject(new TypeError('Body is unusable'));
    this.read = true;
    const incoming = this.incoming;
    // The whole body already arrived (the request waited its turn, util/fair-turn.ts): it is read
    // out of the stream's buffer now, with no listeners, closures or wait.
    if (incoming.complete && !incoming.destroyed && incoming.readableFlowing === null && !incoming.readableDidRead) {
      const chunks: Buffer[] = [];
      for (let c = incoming.read() as Buffer | null; c !== null; c = incoming.read() as Buffer | null) chunks.push(c);
      return Promise.resolve(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    }
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const cleanup = () => {
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.off('error', onError);
        incoming.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const onClose = () => {
        if (incoming.readableEnded) return onEnd();
        if (incoming.complete) {
          // Every byte arrived before the connection went: what is still buffered is the rest.
          for (let c = incoming.read() as Buffer | null; c !== null; c = incoming.read() as Buffer | null) chunks.push(c);
          return onEnd();
        }
        cleanup();
        reject(incoming.errored ?? new Error('Client connection prematurely closed.'));
      };
      incoming.on('data', onData);
      incoming.on('end', onEnd);
      incoming.on('error', onError);
      incoming.on('close', onClose);
    });
  }
}
