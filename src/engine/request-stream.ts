/**
 * One request's chunks as an async iterator. Cheap on the hot path: chunks that are already
 * queued are handed out through an already-resolved promise, and at most one pending promise
 * exists (while the consumer waits on an empty queue). Single consumer by design.
 */
import type { ChunkListener, EngineChunk, EngineError, RequestStream } from './client-types.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

interface Waiter {
  resolve(r: IteratorResult<EngineChunk>): void;
  reject(err: unknown): void;
}

export class EngineRequestStream implements RequestStream, AsyncIterator<EngineChunk> {
  private queue: (EngineChunk | undefined)[] = [];
  private head = 0;
  private waiter: Waiter | null = null;
  /** No more chunks will be pushed (terminal output, abort, failure or consumer gone). */
  private ended = false;
  private error: EngineError | null = null;
  private listener: ChunkListener | null = null;

  constructor(
    readonly requestId: string,
    readonly rank: number,
    /** Called when the consumer stops early, so the client can abort the engine request. */
    private readonly onDrop: (requestId: string) => void,
    /**
     * Called when the listener threw: the listener runs inside the engine output reader, which
     * every request of the worker shares, so its exception ends this request (the stream drops
     * it, the client aborts it on the engine and logs) instead of the reader.
     */
    private readonly onListenerError: (requestId: string, err: unknown) => void = () => {},
  ) {}

  /**
   * The listener threw (from chunk, end or fail): this request ends here (see onListenerError).
   * try/catch sits at each call site rather than in a helper taking a closure: push() runs once
   * per request per engine step.
   */
  private listenerThrew(err: unknown, wasLive: boolean): void {
    this.ended = true;
    this.listener = null;
    this.onListenerError(this.requestId, err);
    if (wasLive) this.onDrop(this.requestId);
  }

  listen(listener: ChunkListener): void {
    this.listener = listener;
    // Anything that arrived before (nothing, when called right after submit) is handed over in order.
    const queued = this.queue.slice(this.head) as EngineChunk[];
    this.queue.length = 0;
    this.head = 0;
    try {
      for (const c of queued) listener.chunk(c);
    } catch (err) {
      this.listenerThrew(err, !this.ended);
      return;
    }
    if (this.ended) {
      const err = this.error;
      this.error = null;
      try {
        if (err) listener.fail(err);
        else listener.end();
      } catch (e) {
        this.listenerThrew(e, false);
      }
    }
  }

  push(chunk: EngineChunk): void {
    if (this.ended) return;
    if (this.listener) {
      try {
        this.listener.chunk(chunk);
      } catch (err) {
        this.listenerThrew(err, true);
      }
      return;
    }
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve({ value: chunk, done: false });
    } else {
      this.queue.push(chunk);
    }
  }

  /** Normal end: queued chunks are still delivered, then the iterator completes. */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.listener) {
      try {
        this.listener.end();
      } catch (err) {
        this.listenerThrew(err, false);
      }
      return;
    }
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve(DONE);
    }
  }

  /** Failure: queued chunks are delivered first, then the iterator throws `err` once. */
  fail(err: EngineError): void {
    if (this.ended) return;
    this.ended = true;
    if (this.listener) {
      try {
        this.listener.fail(err);
      } catch (e) {
        this.listenerThrew(e, false);
      }
      return;
    }
    this.error = err;
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      this.error = null;
      w.reject(err);
    }
  }

  next(): Promise<IteratorResult<EngineChunk>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as EngineChunk;
      this.queue[this.head++] = undefined;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.error) {
      const err = this.error;
      this.error = null;
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve(DONE);
    if (this.waiter) return Promise.reject(new Error(`request stream \`${this.requestId}\` has another pending read`));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** `break` out of for-await: drop what is queued and let the client abort the engine side. */
  return(): Promise<IteratorResult<EngineChunk>> {
    const wasLive = !this.ended;
    this.ended = true;
    this.error = null;
    this.queue.length = 0;
    this.head = 0;
    if (wasLive) this.onDrop(this.requestId);
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterator<EngineChunk> {
    return this;
  }
}
