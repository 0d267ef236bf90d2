/**
 * Socket plumbing of one mock rank: DEALER/PUSH creation with the options a real engine uses, and a
 * send queue, because zeromq.js rejects a second send while one is pending (EBUSY) and the step
 * loop, the input thread and signal handlers all write to the same PUSH.
 */
import { Dealer, Push } from 'zeromq';
import { engineIdFor } from '../engine/engine-id.js';

/** zeromq.js types routingId as string; a Buffer keeps bytes >= 0x80 intact (wire-vllm §1.3). */
export function dealerFor(rank: number, opts: { linger: number; receiveHighWaterMark?: number }): Dealer {
  const sock = new Dealer({
    linger: opts.linger,
    sendHighWaterMark: 0,
    receiveHighWaterMark: opts.receiveHighWaterMark ?? 0,
  });
  (sock as unknown as { routingId: Buffer }).routingId = engineIdFor(rank);
  return sock;
}

/** vLLM lingers 4 s on the output PUSH so ENGINE_CORE_DEAD gets out; 2 s is plenty locally. */
export const OUTPUT_LINGER_MS = 2000;

export function pushSocket(): Push {
  return new Push({ linger: OUTPUT_LINGER_MS, sendHighWaterMark: 0 });
}

/** Serialises sends on one socket; a failed send is reported and does not poison the queue. */
export class SendQueue {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly sock: { send(frames: Buffer[] | Buffer): Promise<void> },
    private readonly onError: (err: Error) => void,
  ) {}

  send(frames: Buffer[] | Buffer): Promise<void> {
    const next = this.tail.then(async () => {
      if (this.closed) return;
      try {
        await this.sock.send(frames);
      } catch (err) {
        this.onError(err as Error);
      }
    });
    this.tail = next;
    return next;
  }

  /** Resolves once everything queued so far has been handed to libzmq. */
  flush(): Promise<void> {
    return this.tail;
  }

  /** Later sends become no-ops (silent/garbage faults, shutdown). */
  close(): void {
    this.closed = true;
  }
}
