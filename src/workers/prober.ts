/**
 * One timer per worker. The manager decides what a probe means; this only keeps the schedule
 * (earliest-wins for prompt re-probes, cancel on removal, stop on shutdown).
 */
import type { Worker } from './worker.js';

interface Slot {
  timer: NodeJS.Timeout;
  due: number;
}

export class ProbeScheduler {
  private readonly slots = new Map<string, Slot>();
  private stopped = false;

  constructor(private readonly run: (worker: Worker) => void) {}

  /** Replaces any pending probe of this worker. */
  schedule(worker: Worker, delayMs: number): void {
    this.cancel(worker);
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.slots.delete(worker.id);
      this.run(worker);
    }, delayMs);
    // The HTTP listener keeps the process alive; probes alone must not.
    timer.unref?.();
    this.slots.set(worker.id, { timer, due: Date.now() + delayMs });
  }

  /** Moves the next probe earlier (never later). */
  scheduleSooner(worker: Worker, delayMs: number): void {
    const slot = this.slots.get(worker.id);
    if (slot && slot.due <= Date.now() + delayMs) return;
    this.schedule(worker, delayMs);
  }

  cancel(worker: Worker): void {
    const slot = this.slots.get(worker.id);
    if (!slot) return;
    clearTimeout(slot.timer);
    this.slots.delete(worker.id);
  }

  stop(): void {
    this.stopped = true;
    for (const slot of this.slots.values()) clearTimeout(slot.timer);
    this.slots.clear();
  }
}
