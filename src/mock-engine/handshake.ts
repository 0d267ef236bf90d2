/**
 * One rank's startup handshake, engine side (wire-vllm §2.1): HELLO on the handshake DEALER,
 * strict INIT, "model load", registration on the input DEALER, output PUSH, READY, close. Real
 * vLLM sends the registration before READY; `readyFirst` gives SMG's mock order instead.
 */
import type { Dealer, Push } from 'zeromq';
import { decodeInit, encodeHello, encodeReady, type InitMessage } from '../engine/handshake-messages.js';
import type { Logger } from '../util/logger.js';
import { dealerFor, pushSocket } from './sockets.js';

export interface HandshakeOptions {
  rank: number;
  address: string;
  initTimeoutMs: number;
  loadDelayMs: number;
  readyFirst: boolean;
  /** MoE lockstep ranks add it to READY; dense ranks omit the key. */
  parallelConfigHash: string | undefined;
  /** Finite only for the stall-input fault, so the gateway's sends can actually back up. */
  inputReceiveHwm: number;
  registration: () => Buffer;
  logger: Logger;
}

export interface RankSockets {
  init: InitMessage;
  input: Dealer;
  output: Push;
}

/** A startup failure a real engine would die of; the message is what vLLM prints. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** vLLM phrases its 5-minute INIT timeout in minutes; other values read better in seconds. */
export function initTimeoutText(ms: number): string {
  const s = Math.round(ms / 1000);
  const span = s % 60 === 0 ? `${s / 60} minute${s === 60 ? '' : 's'}` : `${s} second${s === 1 ? '' : 's'}`;
  return `Did not receive response from front-end process within ${span}`;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function handshakeRank(o: HandshakeOptions): Promise<RankSockets> {
  const log = o.logger.child({ rank: o.rank });
  const hs = dealerFor(o.rank, { linger: 5000 });
  hs.receiveTimeout = o.initTimeoutMs;
  try {
    hs.connect(o.address);
    await hs.send(encodeHello({ local: false, headless: true }));
    log.info(`HELLO sent to ${o.address}`);
    let frames: Buffer[];
    try {
      frames = await hs.receive();
    } catch (err) {
      if ((err as { code?: string }).code === 'EAGAIN') throw new StartupError(initTimeoutText(o.initTimeoutMs));
      throw err;
    }
    // Errata 4: vLLM reads INIT from the first frame only.
    const init = decodeInitStrict(frames[0]);
    log.info(`INIT received: input=${init.addresses.inputs[0]} output=${init.addresses.outputs[0]}`);
    if (o.loadDelayMs > 0) {
      log.info(`loading model (simulated, ${o.loadDelayMs} ms)`);
      await sleep(o.loadDelayMs);
    }
    const input = dealerFor(o.rank, { linger: 0, receiveHighWaterMark: o.inputReceiveHwm });
    const output = pushSocket();
    const ready = encodeReady({ local: false, headless: true, parallelConfigHash: o.parallelConfigHash });
    if (o.readyFirst) {
      await hs.send(ready);
      log.info('READY sent (before registration)');
    }
    input.connect(init.addresses.inputs[0]);
    await input.send(o.registration());
    log.info('registration sent');
    output.connect(init.addresses.outputs[0]);
    if (!o.readyFirst) {
      await hs.send(ready);
      log.info('READY sent');
    }
    return { init, input, output };
  } finally {
    hs.close();
  }
}

function decodeInitStrict(frame: Buffer | undefined): InitMessage {
  if (frame === undefined) throw new StartupError('empty INIT message');
  let init: InitMessage;
  try {
    init = decodeInit(frame);
  } catch (err) {
    throw new StartupError(`failed to decode INIT: ${(err as Error).message}`);
  }
  const a = init.addresses;
  if (a.inputs.length === 0 || a.outputs.length === 0) throw new StartupError('INIT has no input or output address');
  if (a.coordinatorInput !== null || a.coordinatorOutput !== null) {
    throw new StartupError('INIT names a DP coordinator; the mock engine does not emulate one');
  }
  return init;
}
