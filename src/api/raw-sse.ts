/**
 * A streaming answer written straight to the Node response: each event is encoded as it is
 * produced, synchronously, from the engine output that caused it, into the stream's pending bytes
 * (frame-bytes.ts). They are written when flush-scheduler.ts comes round (normally in the same
 * turn's check phase), so every engine message already read is handled first and a stream's frames
 * from all of them leave in one write: when the engine runs ahead, many tokens cost one syscall
 * per stream instead of one per token. While a socket's buffer is full, frames wait in the pending
 * bytes until it drains: the engine is never slowed down (as in SMG), and a slow client costs
 * memory, not CPU. The 200 itself waits briefly for the first frames (head-hold.ts), so a short
 * answer is one write in all.
 */
import type { GenEvent, GenerationSink } from '../pipeline/events.js';
import { type Flushable, scheduleFlush } from './flush-scheduler.js';
import { FrameBytes } from './frame-bytes.js';
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

/** An ending stream with at most this much unwritten (about a socket buffer's worth) ends at once. */
const END_NOW_MAX = 16 * 1024;

export class RawSseWriter implements GenerationSink, Flushable, HeldHead {
  /** The 200 is committed but waits for the first frames (or head-hold.ts's timer). */
  private headHeld = false;
  private readonly pending = new FrameBytes();
  /** Queued with the flush scheduler. */
  private scheduled = false;
  /** The socket pushed back: nothing is written until it drains. */
  private blocked = false;
  private finished = false;

  constructor(
    private readonly raw: RawResponse,
    private readonly enc: SseEncoder,
    private readonly opts: RawSseOptions,
  ) {
    raw.onDrain(() => {
      this.blocked = false;
      this.flush();
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
    // No start frames to carry it: the head goes out on its own.
    if (this.pending.size === 0) this.raw.flushHead();
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

  /** Writes what is pending, or ends the response once it is over (the flush scheduler's call). */
  flush(): void {
    this.scheduled = false;
    if (this.blocked || this.raw.closed) return;
    if (this.finished) return this.endNow();
    if (this.pending.size > 0) {
      if (!this.raw.write(this.pending.take())) this.blocked = true;
    }
    // The socket has sent all it was given (now, or by the drain that called this): the buffer
    // can serve another stream.
    if (this.raw.idle) this.pending.release();
  }

  private head(): void {
    this.headHeld = false;
    this.raw.writeHead(200, { ...SSE_HEADERS, ...this.opts.headers });
    const start = this.enc.start?.();
    if (start) this.send(start);
  }

  private send(frames: string): void {
    if (this.raw.closed) return;
    this.pending.append(frames);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.blocked) return;
    this.scheduled = true;
    scheduleFlush(this);
  }

  private close(frames: string): void {
    if (frames && !this.raw.closed) this.pending.append(frames);
    this.finished = true;
    if (this.pending.size <= END_NOW_MAX) {
      if (!this.blocked) this.endNow();
    } else {
      // A long backlog is written by the flush scheduler, in its time-bounded turn: an engine
      // message that ends many streams must not write all of them while it is handled.
      this.schedule();
    }
    this.opts.onClose();
  }

  /** The last write: what is pending and the end of the response, together. */
  private endNow(): void {
    if (this.raw.closed) return;
    if (this.pending.size === 0) {
      this.raw.end();
      return;
    }
    this.raw.end(this.pending.take());
    if (this.raw.idle) this.pending.release();
  }
}
