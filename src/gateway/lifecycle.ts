/**
 * Process-level serving state: draining (shutdown started) and how many HTTP requests are still
 * in flight, so shutdown can wait for them.
 */
export class Lifecycle {
  private drainingFlag = false;
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  get draining(): boolean {
    return this.drainingFlag;
  }
  get inFlight(): number {
    return this.active;
  }

  startDraining(): void {
    this.drainingFlag = true;
  }

  /** Counts one request; the returned release is idempotent. */
  begin(): () => void {
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      if (this.active === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    };
  }

  /** True when idle before the timeout. */
  async waitIdle(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const result = await Promise.race([idle, timeout]);
    clearTimeout(timer);
    return result;
  }
}
