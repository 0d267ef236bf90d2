/**
 * One attempt against one HTTP worker: send the buffered request, resolve with the response head
 * (the body still unread, so the caller decides between relaying it and retrying elsewhere).
 * Plain node:http with keep-alive agents: the bytes pass untouched (fetch would decompress a
 * gzip body and re-frame it).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });

export interface UpstreamCall {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Socket inactivity that fails the attempt (the request timeout). */
  idleTimeoutMs: number;
}

/** The attempt failed before any response head: the status the client would see for it. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly status: 502 | 504,
    readonly code: string,
    /** The request went out on a reused keep-alive socket the peer had already closed. */
    readonly staleSocket = false,
  ) {
    super(message);
  }
}

export interface Attempt {
  request: ClientRequest;
  response: Promise<IncomingMessage>;
}

export function sendUpstream(call: UpstreamCall): Attempt {
  const https = call.url.protocol === 'https:';
  const req = (https ? httpsRequest : httpRequest)(call.url, {
    method: call.method,
    headers: call.headers,
    agent: https ? httpsAgent : httpAgent,
    timeout: call.idleTimeoutMs,
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('timeout', () => req.destroy(new UpstreamError(`upstream ${call.url.host} timed out`, 504, 'ETIMEDOUT')));
    req.once('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof UpstreamError) reject(err);
      else {
        const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(new UpstreamError(`upstream ${call.url.host} unreachable: ${err.code ?? err.message}`, 502, err.code ?? 'EUPSTREAM', stale));
      }
    });
  });
  req.end(call.body);
  return { request: req, response };
}
