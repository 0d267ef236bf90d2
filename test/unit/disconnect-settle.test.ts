import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as zmq from 'zeromq';
import { DISCONNECT_SETTLE_MAX_MS, DISCONNECT_SETTLE_MS, type DeathLatch, watchPeers } from '../../src/engine/death-rules.js';
import { EngineDeathError } from '../../src/engine/engine-death.js';
import { PeerTracker } from '../../src/engine/peer-tracker.js';
import { silentLogger } from '../../src/util/logger.js';

/** One engine on the output socket, and a latch that records how it died. */
function rig(pending: () => boolean) {
  const events = new EventEmitter();
  const peers = new PeerTracker(events as unknown as zmq.Observer);
  const deaths: { cause: string; at: number }[] = [];
  let live = true;
  const start = Date.now();
  const latch: DeathLatch = {
    url: 'ipc:///tmp/x',
    logger: silentLogger(),
    isLive: () => live,
    outputPending: pending,
    die: (err) => {
      if (!(err instanceof EngineDeathError)) throw new Error('not a death');
      live = false;
      deaths.push({ cause: err.deathCause, at: Date.now() - start });
    },
  };
  watchPeers(latch, peers, 'output', 1);
  events.emit('handshake');
  return { events, deaths, dieOfSentinel: () => latch.die(new EngineDeathError('dead', 'engine core reported fatal failure', 'sentinel'), 'sentinel') };
}

describe('an engine leaving: the disconnect waits for what it said last', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('with nothing left to read, the engine is declared gone after the settle time', () => {
    const r = rig(() => false);
    r.events.emit('disconnect');
    vi.advanceTimersByTime(DISCONNECT_SETTLE_MS - 1);
    expect(r.deaths).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(r.deaths).toEqual([{ cause: 'disconnect', at: DISCONNECT_SETTLE_MS }]);
  });

  it('while its output still holds unread messages, the reader gets to them first', () => {
    let unread = 3; // checks before the reader reaches the queued ENGINE_CORE_DEAD
    const r = rig(() => unread-- > 0);
    r.events.emit('disconnect');
    vi.advanceTimersByTime(3 * DISCONNECT_SETTLE_MS);
    expect(r.deaths).toEqual([]);
    r.dieOfSentinel();
    vi.advanceTimersByTime(DISCONNECT_SETTLE_MAX_MS);
    expect(r.deaths.map((d) => d.cause)).toEqual(['sentinel']);
  });

  it('an output that never drains delays the verdict only so long', () => {
    const r = rig(() => true);
    r.events.emit('disconnect');
    vi.advanceTimersByTime(DISCONNECT_SETTLE_MAX_MS);
    expect(r.deaths).toEqual([{ cause: 'disconnect', at: DISCONNECT_SETTLE_MAX_MS }]);
  });
});
