/** A level-free wake-up: loops `await wait()` when idle and producers `notify()` on new work. */
export class Signal {
  private waiters: (() => void)[] = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One scheduler tick: the configured per-token delay, or just a yield to the event loop. */
export function tick(ms: number): Promise<void> {
  return ms > 0 ? sleep(ms) : new Promise((r) => setImmediate(r));
}
