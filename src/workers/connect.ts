/**
 * The seam between a worker and its engine client. Workers receive a ConnectEngineFn so unit tests
 * hand in a fake EngineClientApi; the gateway wires `connectEngine` (the real client) by default.
 */
import type { EngineClientApi } from '../engine/client-types.js';
import type { RuntimeType } from '../engine/types.js';
import type { Logger } from '../util/logger.js';

export interface WorkerConnectOptions {
  url: string;
  runtime: RuntimeType;
  engineCount: number;
  /** Override from `zmq_handshake_address`; undefined → derived from the ipc path. */
  handshakeAddress: string | undefined;
  stageTimeoutMs: number;
  silenceTimeoutMs: number;
  logger: Logger;
  /** Aborted when the worker is removed or replaced: the client must release its binds. */
  signal: AbortSignal;
  /** Called once the sockets are bound and the handshake listener waits for the engines. */
  onBound?: () => void;
}

export type ConnectEngineFn = (opts: WorkerConnectOptions) => Promise<EngineClientApi>;

/**
 * The real engine client. Loaded lazily so importing the worker layer (and its unit tests) never
 * pulls in the native zeromq binding.
 */
export const connectEngine: ConnectEngineFn = async (opts) => {
  const [{ connectEngineClient }, { vllmDialect }, { tokenspeedDialect }, { VLLM_INPUT_PROBE }] = await Promise.all([
    import('../engine/engine-client.js'),
    import('../engine/dialects/vllm/index.js'),
    import('../engine/dialects/tokenspeed/index.js'),
    import('../engine/vllm-input-probe.js'),
  ]);
  const tokenspeed = opts.runtime === 'tokenspeed';
  return connectEngineClient({
    url: opts.url,
    engineCount: opts.engineCount,
    dialect: tokenspeed ? tokenspeedDialect : vllmDialect,
    // TokenSpeed has no UTILITY call to ask with; its half-dead state is seen only as a disconnect.
    inputProbe: tokenspeed ? null : VLLM_INPUT_PROBE,
    handshakeAddress: opts.handshakeAddress,
    stageTimeoutMs: opts.stageTimeoutMs,
    silenceTimeoutMs: opts.silenceTimeoutMs,
    logger: opts.logger,
    signal: opts.signal,
    onBound: opts.onBound,
  });
};
