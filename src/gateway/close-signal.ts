/**
 * The client-disconnect signal of a request served by Node: aborted when the connection closes
 * before the response finished (as @hono/node-server's Request.signal, without creating an
 * AbortController per request). Listeners are few (one generation), so a plain array.
 */
import type { ServerResponse } from 'node:http';
import type { CancelSignal } from '../pipeline/cancel-signal.js';
import { onClose } from './raw-response.js';

class ResponseCloseSignal implements CancelSignal {
  aborted = false;
  private listeners: Array<() => void> = [];

  constructor(res: ServerResponse) {
    onClose(res, () => {
      if (!res.writableFinished) this.abort();
    });
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // Every listener here runs once: the signal aborts at most once.
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  private abort(): void {
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }
}

export function closeSignal(res: ServerResponse): CancelSignal {
  return new ResponseCloseSignal(res);
}
