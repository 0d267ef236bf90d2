/**
 * The engine client's death rules that need more than a line: which texts and causes a failed
 * send, a departed peer and an unanswered probe turn into. The client owns the latch (`die`);
 * these only decide when to pull it and with what.
 */
import type { Logger } from '../util/logger.js';
import { EngineDeathError } from './engine-death.js';
import {
  ENGINE_DEAD_TEXT,
  ENGINE_INPUT_DISCONNECTED_TEXT,
  ENGINE_OUTPUT_DISCONNECTED_TEXT,
  errCode,
  errText,
  inputUnresponsiveText,
} from './error-texts.js';
import { formatSeconds } from './format-seconds.js';
import { InputProbe, type InputProbeSpec, type InputProbeTiming, type UnresponsiveRank } from './input-probe.js';
import type { PeerTracker } from './peer-tracker.js';
import type { RankTable } from './rank-table.js';
import type { InputFrames } from './types.js';

/** The client as the rules see it. */
export interface DeathLatch {
  readonly url: string;
  readonly logger: Logger;
  isLive(): boolean;
  /** The output socket holds messages the reader has not taken yet. */
  outputPending(): boolean;
  die(err: EngineDeathError, logMsg: string, extra?: Record<string, unknown>): void;
}

/** How long after the handshake to re-count peers when one left during it. */
const HANDSHAKE_PEER_RECHECK_MS = 250;

/**
 * An engine that reports its death sends ENGINE_CORE_DEAD and then exits, so its disconnect and
 * its sentinel reach us on different sockets at nearly the same moment, in either order. The
 * disconnect waits DISCONNECT_SETTLE_MS, and longer while the output socket still holds unread
 * messages (a busy or descheduled process can run the timer before the reader), so the one cause
 * requests see is the engine's own report. A SIGKILLed engine, which sends nothing, is declared
 * dead DISCONNECT_SETTLE_MS later; an output that never drains delays it DISCONNECT_SETTLE_MAX_MS
 * at most.
 */
export const DISCONNECT_SETTLE_MS = 50;
export const DISCONNECT_SETTLE_MAX_MS = 2000;

/** A failed input send is fatal (smg-newest §2.8): a timed-out send may have left the socket part-sent. */
export function dieOfSendFailure(latch: DeathLatch, err: unknown): void {
  const code = errCode(err);
  const msg =
    code === 'EAGAIN'
      ? 'engine input send timed out; treating engine as dead'
      : code === 'EHOSTUNREACH'
        ? 'engine input send failed: engine unreachable; treating engine as dead'
        : 'engine input send failed; treating engine as dead';
  latch.die(new EngineDeathError('dead', ENGINE_DEAD_TEXT, 'send_failure'), msg, { error: errText(err) });
}

/**
 * A ZMTP peer leaving is an engine leaving only when fewer peers than engines remain: the tracker
 * ignores connections that never spoke ZMTP, and a stale engine of the previous connection may
 * still be attached to the rebound socket when it goes.
 */
export function watchPeers(latch: DeathLatch, peers: PeerTracker, socket: 'input' | 'output', engines: number): void {
  const gone = (remaining: number) => {
    const text = socket === 'input' ? ENGINE_INPUT_DISCONNECTED_TEXT : ENGINE_OUTPUT_DISCONNECTED_TEXT;
    latch.die(new EngineDeathError('dead', text, 'disconnect'), `engine disconnected from the ${socket} socket; treating engine as dead`, {
      connected: remaining,
      engines,
    });
  };
  const settle = (remaining: number, waitedMs: number) => {
    setTimeout(() => {
      if (!latch.isLive()) return;
      const waited = waitedMs + DISCONNECT_SETTLE_MS;
      if (latch.outputPending() && waited < DISCONNECT_SETTLE_MAX_MS) settle(remaining, waited);
      else gone(remaining);
    }, DISCONNECT_SETTLE_MS).unref();
  };
  peers.onPeerLeft((remaining) => {
    if (!latch.isLive()) return;
    if (remaining < engines) {
      settle(remaining, 0);
      return;
    }
    latch.logger.debug({ worker: latch.url, socket, remaining }, 'a stale engine connection closed; the group is still connected');
  });
  // Someone left the input socket before the client existed: count again once the survivors'
  // monitor events are in. Every engine's input connection completed before its registration was
  // read, so a short wait settles the count. Not for the output socket: an engine connects its
  // PUSH only after registering and may still be connecting now.
  if (socket === 'input' && peers.departures > 0) {
    setTimeout(() => {
      if (latch.isLive() && peers.count < engines) gone(peers.count);
    }, HANDSHAKE_PEER_RECHECK_MS).unref();
  }
}

/** The half-dead-engine probe of one client, dying with `inputUnresponsiveText` when unanswered. */
export function createInputProbe(
  latch: DeathLatch,
  spec: InputProbeSpec,
  timing: InputProbeTiming,
  table: RankTable,
  ranks: readonly number[],
  send: (rank: number, frames: InputFrames) => void,
): InputProbe {
  const unresponsive = (d: UnresponsiveRank) => {
    const within = formatSeconds(timing.timeoutMs);
    latch.die(
      new EngineDeathError('dead', inputUnresponsiveText(spec.method, timing.timeoutMs), 'input_unresponsive'),
      `engine rank ${d.rank} did not answer ${spec.method} within ${within} while ${d.inFlight} request(s) waited ` +
        `${formatSeconds(Math.round(d.quietMs))} without output (its input thread or busy loop is stuck); treating engine as dead`,
    );
  };
  return new InputProbe(spec, timing, ranks, {
    inFlightByRank: () => new Map(table.states().map((r) => [r.rank, r.inFlight])),
    send,
    unresponsive,
    asked: (rank, callId) =>
      latch.logger.debug({ worker: latch.url, rank, callId }, `requests waiting without output; asking the engine ${spec.method}`),
  });
}
