/**
 * Serialises sends on one socket: zeromq.js allows a single in-flight send per socket (a second
 * one throws EBUSY). Messages go out in enqueue order, which keeps an ADD ahead of the wave
 * broadcast that follows it.
 *
 * The first failure is terminal: a send that timed out may have left the shared socket part-sent,
 * so nothing after it can be trusted. The queue drops the rest and reports once.
 */
import type * as zmq from 'zeromq';

export class SendQueue {
  private items: Buffer[][] = [];
  private head = 0;
  private pumping = false;
  private failed = false;

  constructor(
    private readonly socket: zmq.Writable<Buffer[]>,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  get broken(): boolean {
    return this.failed;
  }

  enqueue(frames: Buffer[]): void {
    if (this.failed) return;
    this.items.push(frames);
    if (!this.pumping) void this.pump();
  }

  /** Drops queued messages (client death or close). */
  clear(): void {
    this.items = [];
    this.head = 0;
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.head < this.items.length) {
        const frames = this.items[this.head++];
        // Compact once the consumed prefix dominates, so a long-lived queue stays small.
        if (this.head > 64 && this.head * 2 > this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        await this.socket.send(frames);
      }
      this.items = [];
      this.head = 0;
    } catch (err) {
      this.failed = true;
      this.clear();
      this.onFailure(err);
    } finally {
      this.pumping = false;
    }
  }
}
