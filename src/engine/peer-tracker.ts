/**
 * Counts the ZMTP peers connected to one bound socket, from its monitor events.
 *
 * Not every disconnect on a bound socket is an engine leaving:
 * - a connection that never completed the ZMTP handshake (another gateway checking whether this
 *   ipc path is live, a port scanner) is reported as `handshake:error:*` followed by
 *   `disconnect`; libzmq emits both from the same error path, in that order;
 * - an engine of the previous connection (one that lingers after its sentinel, or a half-dead one
 *   the supervisor has not killed yet) reconnects to the rebound socket and leaves later.
 * So the client counts: an engine is gone when a ZMTP peer leaves and fewer peers remain than
 * the group has engines.
 *
 * Listening starts when the tracker is built, which is before the socket binds: no event is missed
 * and none is replayed late.
 */
import type * as zmq from 'zeromq';

export class PeerTracker {
  private peers = 0;
  /** Handshake failures whose `disconnect` has not been seen yet. */
  private unpairedFailures = 0;
  private departed = 0;
  private listener: ((remaining: number) => void) | null = null;

  constructor(events: zmq.Observer) {
    events.on('handshake', () => {
      this.peers += 1;
    });
    const failed = () => {
      this.unpairedFailures += 1;
    };
    events.on('handshake:error:other', failed);
    events.on('handshake:error:protocol', failed);
    events.on('handshake:error:auth', failed);
    events.on('disconnect', () => {
      if (this.unpairedFailures > 0) {
        this.unpairedFailures -= 1;
        return;
      }
      this.peers = Math.max(0, this.peers - 1);
      this.departed += 1;
      this.listener?.(this.peers);
    });
  }

  /** ZMTP peers connected now. */
  get count(): number {
    return this.peers;
  }

  /** ZMTP peers that have left since the tracker was built. */
  get departures(): number {
    return this.departed;
  }

  /** Called after each ZMTP peer leaves, with the number still connected. */
  onPeerLeft(listener: (remaining: number) => void): void {
    this.listener = listener;
  }
}
