/**
 * One rank's startup handshake, TokenSpeed order (wire-tokenspeed §2.1): the model is loaded
 * *before* HELLO, READY follows INIT at once, and the data plane is checked only after READY went
 * out. Every failure here exits the rank before an output socket exists, so no sentinel is sent.
 */
import type { Dealer, Push } from 'zeromq';
import { decodeMsgpack } from '../../engine/msgpack/reader.js';
import { encodeTokenSpeedHello, encodeTokenSpeedReady, tokenspeedEngineIndex } from '../wire/tokenspeed/index.js';
import type { Logger } from '../../util/logger.js';
import { StartupError } from '../handshake.js';
import { sleep } from '../signal.js';
import { dealerFor, pushSocket } from '../sockets.js';

/** TokenSpeed logs its wait for INIT this often (§2.1 step 4). */
const INIT_WAIT_LOG_MS = 30_000;

export interface TsHandshakeOptions {
  engineIndex: number;
  address: string;
  initTimeoutMs: number;
  loadDelayMs: number;
  registration: () => Buffer;
  logger: Logger;
  /** True once the process is going down; a rank still loading gives up quietly. */
  stopped: () => boolean;
}

export interface TsRankSockets {
  input: Dealer;
  output: Push;
}

export async function tokenspeedHandshake(o: TsHandshakeOptions): Promise<TsRankSockets | null> {
  const log = o.logger.child({ engine: o.engineIndex });
  tokenspeedEngineIndex(o.engineIndex);
  if (o.loadDelayMs > 0) {
    log.info(`loading model and profiling the KV cache (simulated, ${o.loadDelayMs} ms)`);
    await sleep(o.loadDelayMs);
  }
  if (o.stopped()) return null;
  const hs = dealerFor(o.engineIndex, { linger: 5000 });
  try {
    hs.connect(o.address);
    await hs.send(encodeTokenSpeedHello());
    log.info(`HELLO sent to ${o.address}`);
    const frames = await receiveInit(hs, o.initTimeoutMs, log);
    // TokenSpeed decodes the last frame it received as INIT (Errata 4).
    const addresses = decodeTsInit(frames[frames.length - 1]);
    await hs.send(encodeTokenSpeedReady());
    log.info('INIT received; READY sent');
    // Only inputs[0] and outputs[0] are used, and emptiness is fatal only after READY went out.
    const plane = { input: addresses.inputs[0], output: addresses.outputs[0] };
    if (plane.input === undefined || plane.output === undefined) {
      throw new StartupError('INIT addresses.inputs and addresses.outputs must be non-empty');
    }
    const input = dealerFor(o.engineIndex, { linger: 0 });
    input.connect(plane.input);
    await input.send(o.registration());
    const output = pushSocket();
    output.connect(plane.output);
    log.info(`registration sent; input=${plane.input} output=${plane.output}`);
    return { input, output };
  } finally {
    hs.close();
  }
}

async function receiveInit(hs: Dealer, timeoutMs: number, log: Logger): Promise<Buffer[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new StartupError(`Did not receive INIT from the gateway within ${Math.round(timeoutMs / 1000)} s`);
    hs.receiveTimeout = Math.min(left, INIT_WAIT_LOG_MS);
    try {
      return await hs.receive();
    } catch (err) {
      if ((err as { code?: string }).code !== 'EAGAIN') throw err;
      if (deadline - Date.now() > 0) log.info('waiting for INIT from the gateway');
    }
  }
}

/**
 * INIT as TokenSpeed's msgspec struct reads it (§2.3): only `addresses` is required, with string
 * lists `inputs` and `outputs`; every other key, known or not, is ignored.
 */
function decodeTsInit(frame: Buffer | undefined): { inputs: string[]; outputs: string[] } {
  let msg: unknown;
  try {
    msg = decodeMsgpack(frame ?? Buffer.alloc(0), 'INIT');
  } catch (err) {
    throw new StartupError(`failed to decode INIT: ${(err as Error).message}`);
  }
  const addr = (msg as { addresses?: unknown } | null)?.addresses;
  if (addr === null || typeof addr !== 'object' || Array.isArray(addr)) {
    throw new StartupError('failed to decode INIT: Object missing required field `addresses`');
  }
  const list = (key: 'inputs' | 'outputs'): string[] => {
    const v = (addr as Record<string, unknown>)[key];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw new StartupError(`failed to decode INIT: addresses.${key} must be a list of str`);
    }
    return v as string[];
  };
  return { inputs: list('inputs'), outputs: list('outputs') };
}
