/**
 * A streaming answer written straight to the Node response: each event is encoded and written as
 * it is produced, synchronously, from the engine output that caused it. Writes are corked until
 * flush-scheduler.ts uncorks them (normally in the same turn's check phase), so every engine
 * message already read is handled first and a stream's frames from all of them leave in one
 * write: when the engine runs ahead, many tokens cost one syscall per stream instead of one per
 * token. When a socket's buffer is full, frames are kept in one string until it drains: the engine
 * is never slowed down (as in SMG), and a slow client costs memory, not CPU. The 200 itself waits
 * briefly for the first frames (head-hold.ts), so a short answer is one write in all.
 */
import type { GenEvent, GenerationSink } from '../pipeline/events.js';
import { type Corked, scheduleFlush } from './flush-scheduler.js';
import { type HeldHead, holdHead } from './head-hold.js';
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

export class RawSseWriter implements GenerationSink, Corked, HeldHead {
  corkedAt = 0;
  /** The 200 is committed but waits for the first frames (or head-hold.ts's timer). */
  private headHeld = false;
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

  /**
   * The generation started. Unless the head waits for the first event (lazyHead), the 200 is
   * committed now; it leaves with the first frames, or alone when its hold is over.
   */
  begin(): void {
    if (this.opts.lazyHead || this.raw.headersSent) return;
    this.headHeld = true;
    holdHead(this);
  }

  releaseHead(): void {
    if (!this.headHeld) return;
    if (this.raw.closed) {
      this.headHeld = false;
      return;
    }
    this.head();
    // Nothing was corked (no start frames): the head goes out on its own.
    if (!this.corked) this.raw.flushHead();
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
    // A held head is already committed: the failure is an error frame after it, as without the hold.
    if (this.headHeld) this.head();
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
    this.headHeld = false;
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
