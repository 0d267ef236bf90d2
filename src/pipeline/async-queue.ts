/**
 * A single-consumer async queue: producers push synchronously, one consumer iterates. Items
 * already queued are handed out without creating a promise, so a fast producer costs no more
 * than an array push per item.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | null = null;
  private readyWaiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private ended = false;
  private failed = false;
  private error: unknown = undefined;

  /** Items queued and not yet taken. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
      this.settleReady(null);
    }
  }

  /**
   * Resolves once an item is queued or the queue ended, without taking anything; rejects if it
   * failed first. Lets a caller decide on an HTTP status before committing to a stream.
   */
  whenReady(): Promise<void> {
    if (this.size > 0 || (this.ended && !this.failed)) return Promise.resolve();
    if (this.failed) return Promise.reject(this.error);
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  private settleReady(err: unknown): void {
    if (this.readyWaiters.length === 0) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) {
      if (err === null) w.resolve();
      else w.reject(err);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiter;
    this.waiter = null;
    w?.resolve({ value: undefined, done: true });
    this.settleReady(null);
  }

  fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failed = true;
    this.error = err;
    const w = this.waiter;
    this.waiter = null;
    w?.reject(err);
    this.settleReady(err ?? new Error('queue failed'));
  }

  private take(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head++];
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) {
      return this.failed ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.take() };
  }
}
