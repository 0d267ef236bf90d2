/**
 * Binds a worker's three sockets and runs the startup handshake for exactly N engines
 * (smg-newest §1.4): HELLO → INIT for N distinct identities, then READY from each, then each
 * engine's registration on the input socket. Registrations may be sent before READY (real vLLM
 * does); they sit queued in the input ROUTER until this reads them, so both orders work.
 */
import * as zmq from 'zeromq';
import type { Logger } from '../util/logger.js';
import { engineIndexOf, formatEngineId } from './engine-id.js';
import { errCode, errText } from './error-texts.js';
import { formatSeconds } from './format-seconds.js';
import { decodeStatusMessage, encodeInit, type StatusMessage } from './handshake-messages.js';
import { removeOwnSocketFiles, statBoundSocket, type BoundSocketFile, type EngineAddresses } from './ipc-path.js';
import { PeerTracker } from './peer-tracker.js';
import type { Dialect, Registration } from './types.js';

export const DEFAULT_STAGE_TIMEOUT_MS = 600_000;
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export type HandshakeErrorKind = 'unexpected' | 'timeout' | 'bind' | 'transport' | 'cancelled' | 'config';

export class HandshakeError extends Error {
  override name = 'HandshakeError';
  constructor(
    readonly kind: HandshakeErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface HandshakeOptions {
  addresses: EngineAddresses;
  engineCount: number;
  dialect: Pick<Dialect, 'decodeRegistration'>;
  /** Bound on each awaited message (each HELLO, READY, registration). */
  stageTimeoutMs?: number;
  /** sendTimeout of the mandatory ROUTERs (a send to a vanished engine must not hang). */
  sendTimeoutMs?: number;
  /** Aborting closes every socket, which releases the binds at once. */
  signal?: AbortSignal;
  logger: Logger;
}

export interface ConnectedEngine {
  identity: Buffer;
  index: number;
  registration: Registration;
  ready: StatusMessage;
}

export interface HandshakeResult {
  input: zmq.Router;
  output: zmq.Pull;
  /** Peer counts kept from before the first engine could connect, so no disconnect goes unseen. */
  inputPeers: PeerTracker;
  outputPeers: PeerTracker;
  /** Sorted by identity bytes: the scan order of rank selection and wave broadcasts. */
  engines: ConnectedEngine[];
  socketFiles: BoundSocketFile[];
}

export { formatSeconds };

function unexpected(detail: string): HandshakeError {
  return new HandshakeError('unexpected', `unexpected startup handshake message: ${detail}`);
}

interface EngineState {
  identity: Buffer;
  ready: StatusMessage | null;
  registration: Registration | null;
}

export async function runHandshake(opts: HandshakeOptions): Promise<HandshakeResult> {
  const { addresses, engineCount, logger, signal } = opts;
  const stageMs = opts.stageTimeoutMs ?? DEFAULT_STAGE_TIMEOUT_MS;
  const sendMs = opts.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  if (!Number.isInteger(engineCount) || engineCount < 1) {
    throw new HandshakeError('config', 'expected engine_count >= 1');
  }
  const cancelled = () => new HandshakeError('cancelled', 'startup handshake cancelled');
  if (signal?.aborted) throw cancelled();

  // HWM 0 everywhere: a ROUTER at its HWM drops silently, a PULL at its HWM stalls the engine.
  const output = new zmq.Pull({ linger: 0, receiveHighWaterMark: 0 });
  const input = new zmq.Router({
    linger: 0,
    mandatory: true,
    // A restarted engine dials back with the same 2-byte identity. Without handover a ROUTER that
    // still holds the old connection under that identity (an engine killed after it had
    // reconnected to these sockets, whose close the idle socket has not processed yet) keeps the
    // new connection anonymous and its registration is never delivered (libzmq
    // ZMQ_ROUTER_HANDOVER, zmq_setsockopt(3)). The newest connection is the engine that counts.
    handover: true,
    sendHighWaterMark: 0,
    receiveHighWaterMark: 0,
    sendTimeout: sendMs,
  });
  const handshake = new zmq.Router({ linger: 0, mandatory: true, sendTimeout: sendMs, receiveTimeout: stageMs });
  const outputPeers = new PeerTracker(output.events);
  const inputPeers = new PeerTracker(input.events);
  const socketFiles: BoundSocketFile[] = [];

  const closeAll = () => {
    for (const s of [handshake, input, output]) if (!s.closed) s.close();
  };
  signal?.addEventListener('abort', closeAll, { once: true });

  const bind = async (sock: zmq.Socket, addr: string, what: string) => {
    try {
      await bindReleasedPort(sock, addr, signal);
    } catch (err) {
      if (signal?.aborted) throw cancelled();
      throw new HandshakeError('bind', `failed to bind ${what} socket ${addr}: ${errText(err)}`);
    }
  };

  const receive = async (sock: zmq.Router, stage: 'HELLO' | 'READY' | 'registration'): Promise<Buffer[]> => {
    try {
      return await sock.receive();
    } catch (err) {
      if (signal?.aborted) throw cancelled();
      if (errCode(err) === 'EAGAIN') {
        const after = formatSeconds(stageMs);
        throw new HandshakeError(
          'timeout',
          stage === 'registration'
            ? `engine input registration timed out after ${after}`
            : `startup handshake timed out while waiting for ${stage} after ${after}`,
        );
      }
      throw new HandshakeError('transport', `transport error: ${errText(err)}`);
    }
  };

  const states = new Map<string, EngineState>();
  const keyOf = (id: Buffer) => id.toString('hex');

  const acceptReady = (id: Buffer, msg: StatusMessage) => {
    const st = states.get(keyOf(id));
    if (!st || st.ready) throw unexpected(`READY for unexpected or duplicate engine id ${formatEngineId(id)}`);
    st.ready = msg;
    logger.debug({ engine: formatEngineId(id) }, 'engine sent READY');
  };

  const readStatus = async (stage: 'HELLO' | 'READY'): Promise<[Buffer, StatusMessage]> => {
    const frames = await receive(handshake, stage);
    if (frames.length !== 2) throw unexpected(`expected 2 frames, got ${frames.length}`);
    const [id, payload] = frames;
    let msg: StatusMessage;
    try {
      msg = decodeStatusMessage(payload);
    } catch (err) {
      throw unexpected(`undecodable handshake message from engine id ${formatEngineId(id)}: ${errText(err)}`);
    }
    if (engineIndexOf(id) === null) {
      throw unexpected(`engine id ${formatEngineId(id)} is not a 2-byte engine index`);
    }
    return [id, msg];
  };

  try {
    await bind(output, addresses.output, 'output');
    await bind(input, addresses.input, 'input');
    for (const p of [addresses.outputPath, addresses.inputPath]) {
      const f = await statBoundSocket(p);
      if (f) socketFiles.push(f);
    }
    await bind(handshake, addresses.handshake, 'handshake');

    const init = encodeInit(addresses.input, addresses.output);
    // HELLO phase: until N distinct identities have said HELLO (READY may already trickle in).
    while (states.size < engineCount) {
      const [id, msg] = await readStatus('HELLO');
      if (msg.status === 'HELLO') {
        if (states.has(keyOf(id))) throw unexpected(`duplicate engine id ${formatEngineId(id)} during startup handshake`);
        states.set(keyOf(id), { identity: Buffer.from(id), ready: null, registration: null });
        try {
          await handshake.send([id, init]);
        } catch (err) {
          if (signal?.aborted) throw cancelled();
          throw new HandshakeError('transport', `failed to send INIT to engine id ${formatEngineId(id)}: ${errText(err)}`);
        }
        logger.debug({ engine: formatEngineId(id) }, 'engine sent HELLO; replied INIT');
      } else if (msg.status === 'READY') {
        acceptReady(id, msg);
      } else {
        throw unexpected(`unexpected handshake status ${JSON.stringify(msg.status)}`);
      }
    }
    // READY phase: the group is complete, so any HELLO now is an extra engine.
    const missingReady = () => [...states.values()].some((s) => !s.ready);
    while (missingReady()) {
      const [id, msg] = await readStatus('READY');
      if (msg.status === 'HELLO') throw unexpected(`duplicate HELLO for engine id ${formatEngineId(id)} after INIT phase`);
      if (msg.status !== 'READY') throw unexpected(`unexpected handshake status ${JSON.stringify(msg.status)}`);
      acceptReady(id, msg);
    }
    // Engines close their handshake DEALER after READY; a late extra engine is never answered.
    handshake.close();

    input.receiveTimeout = stageMs;
    let registered = 0;
    while (registered < engineCount) {
      const frames = await receive(input, 'registration');
      if (frames.length !== 2) throw unexpected(`expected 2 frames for engine input registration, got ${frames.length}`);
      const [id, payload] = frames;
      const st = states.get(keyOf(id));
      if (!st || st.registration) throw unexpected(`input registration for unexpected engine id ${formatEngineId(id)}`);
      if (payload.length === 0) throw unexpected(`empty EngineCoreReadyResponse from engine id ${formatEngineId(id)}`);
      try {
        st.registration = opts.dialect.decodeRegistration(payload);
      } catch (err) {
        throw unexpected(`invalid EngineCoreReadyResponse from engine id ${formatEngineId(id)}: ${errText(err)}`);
      }
      registered++;
      logger.debug({ engine: formatEngineId(id) }, 'engine registered on the input socket');
    }
    input.receiveTimeout = -1;
  } catch (err) {
    closeAll();
    await removeOwnSocketFiles(socketFiles);
    if (signal?.aborted) throw cancelled();
    throw err;
  } finally {
    signal?.removeEventListener('abort', closeAll);
  }

  const engines = [...states.values()]
    .sort((a, b) => Buffer.compare(a.identity, b.identity))
    .map((s) => ({
      identity: s.identity,
      index: engineIndexOf(s.identity) as number,
      registration: s.registration as Registration,
      ready: s.ready as StatusMessage,
    }));
  return { input, output, inputPeers, outputPeers, engines, socketFiles };
}

/**
 * libzmq releases a closed socket's TCP port on its I/O thread, a moment after close() returns, so
 * re-registering a worker right after removing it can find its own old handshake port still
 * taken. Only EADDRINUSE is retried, for about a second; a port held by someone else still fails.
 */
async function bindReleasedPort(sock: zmq.Socket, addr: string, signal?: AbortSignal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await sock.bind(addr);
      return;
    } catch (err) {
      const inUse = errCode(err) === 'EADDRINUSE' || /already in use/i.test(errText(err));
      if (!inUse || attempt >= 20 || signal?.aborted || !addr.startsWith('tcp://')) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
