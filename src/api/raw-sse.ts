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
import { type HeldHead, type Hold, holdHead, letGo } from './head-hold.js';
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
  /**
   * Encoding or writing this response threw (the writer has already ended the response as best
   * it could): log it and stop the generation. The exception never leaves the writer, because
   * its callers are loops every request shares (the engine output reader, the flush scheduler).
   */
  onBroken?: (err: unknown) => void;
}

/** An ending stream with at most this much unwritten (about a socket buffer's worth) ends at once. */
const END_NOW_MAX = 16 * 1024;

export class RawSseWriter implements GenerationSink, Flushable, HeldHead {
  /** The 200 is committed but waits for the first frames (or head-hold.ts's timer). */
  private headHeld = false;
  /** The hold's queue entry while the head is held (let go of as soon as the head leaves). */
  private hold: Hold | null = null;
  private readonly pending = new FrameBytes();
  /** Queued with the flush scheduler. */
  private scheduled = false;
  /** The socket pushed back: nothing is written until it drains. */
  private blocked = false;
  private finished = false;
  /** Encoding or writing threw; everything after is ignored. */
  private broke = false;
  /** The response takes whole HTTP chunks from us (RawResponse.chunkSelf): writes are framed. */
  private chunked = false;
  /** Frames went out (a head flushed alone by head-hold.ts does not count): no longer first in line. */
  private wrote = false;

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
    this.hold = holdHead(this);
  }

  releaseHead(): void {
    if (!this.headHeld) return;
    if (this.raw.closed) {
      this.unhold();
      return;
    }
    this.head();
    // No start frames to carry it: the head goes out on its own.
    if (this.pending.size === 0) this.raw.flushHead();
  }

  push(ev: GenEvent): void {
    if (this.broke) return;
    try {
      if (!this.raw.headersSent) this.head();
      // Token frames go into the pending bytes without being made as a string first.
      if (this.enc.eventInto !== undefined && !this.raw.closed && this.enc.eventInto(ev, this.pending)) {
        this.schedule();
        return;
      }
      const frames = this.enc.event(ev);
      if (frames) this.send(frames);
    } catch (err) {
      this.broken(err);
    }
  }

  end(): void {
    if (this.broke) return;
    try {
      if (!this.raw.headersSent) this.head();
      this.close(this.enc.end());
    } catch (err) {
      this.broken(err);
    }
  }

  fail(err: unknown): void {
    if (this.broke) return;
    try {
      // A held head is already committed: the failure is an error frame after it, as without the hold.
      if (this.headHeld) this.head();
      if (!this.raw.headersSent && !this.raw.closed) {
        this.answerError(err, () => this.opts.onClose());
        return;
      }
      this.close(this.enc.error(err));
    } catch (e) {
      this.broken(e);
    }
  }

  /** Writes what is pending, or ends the response once it is over (the flush scheduler's call). */
  flush(): void {
    this.scheduled = false;
    if (this.broke || this.blocked || this.raw.closed) return;
    try {
      if (this.finished) return this.endNow();
      if (this.pending.size > 0) {
        this.wrote = true;
        if (!this.raw.write(this.pending.take(this.chunked))) this.blocked = true;
      }
      // The socket has sent all it was given (now, or by the drain that called this): the buffer
      // can serve another stream.
      if (this.raw.idle) this.pending.release();
    } catch (err) {
      this.broken(err);
    }
  }

  /** The flush scheduler's last resort, should flush() itself ever throw. */
  flushFailed(err: unknown): void {
    this.broken(err);
  }

  /** The protocol's error status and body, before any head went out; then `after`. */
  private answerError(err: unknown, after: () => void): void {
    const res = this.opts.errorResponse(err);
    const headers: Record<string, string> = { ...this.opts.headers };
    res.headers.forEach((v, k) => (headers[k] = v));
    res.text().then(
      (body) => {
        try {
          if (!this.raw.closed) {
            this.raw.writeHead(res.status, headers);
            this.raw.end(body);
          }
        } catch {
          this.raw.destroy();
        }
        after();
      },
      () => {
        this.raw.destroy();
        after();
      },
    );
  }

  /**
   * This response's own encoding or writing threw. It ends here: as the protocol's error status
   * when nothing was sent yet, else with the encoder's error frame when that still encodes, else
   * by cutting the connection (a truncated stream is a failure every client sees). Then the
   * generation is stopped and the error logged, through onBroken.
   */
  private broken(err: unknown): void {
    if (this.broke) return;
    this.broke = true;
    this.finished = true;
    // Frames made before the failure are dropped: the answer ends with the error.
    if (this.pending.size > 0) this.pending.take();
    try {
      if (!this.raw.closed) {
        if (!this.raw.headersSent && !this.headHeld) {
          this.answerError(err, () => {});
        } else {
          if (this.headHeld) {
            this.unhold();
            this.raw.writeHead(200, { ...SSE_HEADERS, ...this.opts.headers });
          }
          let frame = '';
          try {
            frame = this.enc.error(err);
          } catch {
            frame = '';
          }
          if (!frame) this.raw.destroy();
          else if (this.chunked) {
            this.pending.append(frame);
            this.raw.end(this.pending.take(true));
          } else this.raw.end(frame);
        }
      }
    } catch {
      this.raw.destroy();
    }
    this.opts.onClose();
    this.opts.onBroken?.(err);
  }

  private unhold(): void {
    this.headHeld = false;
    if (this.hold !== null) {
      letGo(this.hold);
      this.hold = null;
    }
  }

  private head(): void {
    this.unhold();
    this.raw.writeHead(200, { ...SSE_HEADERS, ...this.opts.headers });
    this.chunked = this.raw.chunkSelf?.() ?? false;
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
    // Until its first frames are out, a stream goes before those already streaming (flush-scheduler.ts).
    scheduleFlush(this, !this.wrote);
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
    this.raw.end(this.pending.take(this.chunked));
    if (this.raw.idle) this.pending.release();
  }
}
