/**
 * A streaming answer written straight to the Node response: each event is encoded and written as
 * it is produced, synchronously, from the engine output that caused it. Writes are corked until
 * flush-scheduler.ts uncorks them (normally in the same turn's check phase), so every engine
 * message already read is handled first and a stream's frames from all of them leave in one
 * write: when the engine runs ahead, many tokens cost one syscall per stream instead of one per
 * token. When a socket's buffer is full, frames are kept in one string until it drains: the engine
 * is never slowed down (as in SMG), and a slow client costs memory, not CPU.
 */
import type { GenEvent, GenerationSink } from '../pipeline/events.js';
import { type Corked, scheduleFlush } from './flush-scheduler.js';
import { SSE_HEADERS, type SseEncoder } from './sse.js';
import type { RawResponse } from './types.js';

export interface RawSseOptions {
  headers: Record<string, string>;
  /**
   * Hold the 200 and its headers until the first event: a failure before it is answered as a
   * proper error status instead of an error frame (TokenSpeed refuses requests with an early abort).
   */
  lazyHead: boolean;
  /** The protocol's error response, for a failure before the head went out. */
  errorResponse: (err: unknown) => Response;
  /** Called once when the response is over (ended, failed or the client left). */
  onClose: () => void;
}

export class RawSseWriter implements GenerationSink, Corked {
  corkedAt = 0;
  private corked = false;
  private blocked = false;
  private backlog = '';
  private finished = false;

  constructor(
    private readonly raw: RawResponse,
    private readonly enc: SseEncoder,
    private readonly opts: RawSseOptions,
  ) {
    raw.onDrain(() => {
      this.blocked = false;
      if (this.backlog) {
        const out = this.backlog;
        this.backlog = '';
        this.send(out);
      }
      if (this.finished && !this.blocked) this.raw.end();
    });
  }

  /** The generation started: send the head now unless it waits for the first event. */
  begin(): void {
    if (!this.opts.lazyHead && !this.raw.headersSent) this.head();
  }

  push(ev: GenEvent): void {
    if (!this.raw.headersSent) this.head();
    const frames = this.enc.event(ev);
    if (frames) this.send(frames);
  }

  end(): void {
    if (!this.raw.headersSent) this.head();
    this.close(this.enc.end());
  }

  fail(err: unknown): void {
    if (!this.raw.headersSent && !this.raw.closed) {
      const res = this.opts.errorResponse(err);
      const headers: Record<string, string> = { ...this.opts.headers };
      res.headers.forEach((v, k) => (headers[k] = v));
      void res.text().then((body) => {
        if (this.raw.closed) return this.opts.onClose();
        this.raw.writeHead(res.status, headers);
        this.raw.end(body);
        this.opts.onClose();
      });
      return;
    }
    this.close(this.enc.error(err));
  }

  private head(): void {
    this.raw.writeHead(200, { ...SSE_HEADERS, ...this.opts.headers });
    const start = this.enc.start?.();
    if (start) this.send(start);
  }

  private send(frames: string): void {
    if (this.raw.closed) return;
    if (this.blocked) {
      this.backlog += frames;
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.corkedAt = performance.now();
      this.raw.cork();
      scheduleFlush(this);
    }
    if (!this.raw.write(frames)) this.blocked = true;
  }

  flush(): void {
    this.corked = false;
    this.raw.uncork();
  }

  private close(frames: string): void {
    if (frames) this.send(frames);
    this.finished = true;
    if (!this.blocked && !this.raw.closed) this.raw.end();
    this.opts.onClose();
  }
}
