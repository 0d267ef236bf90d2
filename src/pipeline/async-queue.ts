/**
 * A single-consumer async queue: producers push synchronously, one consumer iterates. Items
 * already queued are handed out without creating a promise, so a fast producer costs no more
 * than an array push per item.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | null = null;
  private ended = false;
  private failed = false;
  private error: unknown = undefined;

  push(item: T): void {
    if (this.ended) return;
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiter;
    this.waiter = null;
    w?.resolve({ value: undefined, done: true });
  }

  fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failed = true;
    this.error = err;
    const w = this.waiter;
    this.waiter = null;
    w?.reject(err);
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
