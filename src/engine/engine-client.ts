/**
 * The gateway's connection to one ZMQ worker: N engines behind one socket set. Dialect-agnostic:
 * the Dialect turns requests into input frames and output frames into OutputEvents; this file
 * owns admission, rank choice, the single output reader, the MoE wake and liveness.
 *
 * Liveness (smg-newest §2.8) plus two rules SMG lacks: a peer disconnect on the input or output
 * socket (a SIGKILLed engine sends no sentinel; without this its requests would wait for the
 * silence watchdog, 300 s), and, for vLLM, the input probe (input-probe.ts) that finds an engine
 * whose input thread is gone while its process lives on.
 */
import type * as zmq from 'zeromq';
import type { Logger } from '../util/logger.js';
import { EngineError, type EngineClientApi, type RankState, type RequestStream } from './client-types.js';
import { createInputProbe, dieOfSendFailure, watchPeers, type DeathLatch } from './death-rules.js';
import { EngineDeathError } from './engine-death.js';
import { formatEngineId } from './engine-id.js';
import {
  CLIENT_CLOSED_TEXT,
  ENGINE_DEAD_TEXT,
  ENGINE_INPUT_DISCONNECTED_TEXT,
  ENGINE_OUTPUT_DISCONNECTED_TEXT,
  OUTPUT_ENDED_TEXT,
  errText,
} from './error-texts.js';
import { formatSeconds } from './format-seconds.js';
import { runHandshake, DEFAULT_SEND_TIMEOUT_MS, HandshakeError, type HandshakeResult } from './handshake.js';
import { DEFAULT_INPUT_PROBE_TIMING, type InputProbe, type InputProbeSpec, type InputProbeTiming } from './input-probe.js';
import { deriveAddresses, prepareIpcEndpoints, removeCreatedDirs, removeOwnSocketFiles, removeStaleSocket, type EngineAddresses } from './ipc-path.js';
import { DecodeErrorRun, SilenceWatchdog } from './liveness.js';
import { RankTable } from './rank-table.js';
import { runtimeMismatch } from './runtime-check.js';
import { IdTable } from './id-table.js';
import { EngineRequestStream } from './request-stream.js';
import { READ_SLICE_MS, yieldSpentSlice } from './read-pressure.js';
import { SendQueue } from './send-queue.js';
import type { Dialect, EngineRequest, InputFrames, OutputEvent, Registration, RuntimeType } from './types.js';
import { WaveClock } from './wave-clock.js';

export { CLIENT_CLOSED_TEXT, ENGINE_DEAD_TEXT, ENGINE_INPUT_DISCONNECTED_TEXT, ENGINE_OUTPUT_DISCONNECTED_TEXT, OUTPUT_ENDED_TEXT };
export const DEFAULT_SILENCE_TIMEOUT_MS = 300_000;

export interface EngineClientOptions {
  /** `ipc://<path>` */
  url: string;
  engineCount: number;
  dialect: Dialect;
  /** tcp:// override of the FNV-derived handshake address. */
  handshakeAddress?: string | null;
  /** Per awaited handshake message; default 600 s. */
  stageTimeoutMs?: number;
  /** Output silence with requests in flight that counts as death; default 300 s. */
  silenceTimeoutMs?: number;
  /** A blocked input send counts as death after this; default 10 s. */
  sendTimeoutMs?: number;
  /**
   * The liveness question for engines that answer UTILITY calls (vLLM: VLLM_INPUT_PROBE); null or
   * absent for TokenSpeed, which has none.
   */
  inputProbe?: InputProbeSpec | null;
  /** Default: ask after 2 s of quiet with requests waiting, allow 10 s for the answer. */
  inputProbeTiming?: Partial<InputProbeTiming>;
  logger: Logger;
  /** Cancels the handshake and releases its binds (worker removal). */
  signal?: AbortSignal;
  /** Called once the socket paths passed their checks and binding starts (status reporting). */
  onBound?: () => void;
}

/** Binds, runs the handshake for exactly `engineCount` engines and returns a live client. */
export async function connectEngineClient(opts: EngineClientOptions): Promise<EngineClient> {
  const addresses = deriveAddresses(opts.url, opts.handshakeAddress);
  const createdDirs = await prepareIpcEndpoints(addresses);
  opts.logger.info(
    `Binding ZMQ client for worker ${opts.url} (handshake=${addresses.handshake}, engines=${opts.engineCount})`,
  );
  opts.onBound?.();
  let hs: HandshakeResult;
  try {
    hs = await runHandshake({
      addresses,
      engineCount: opts.engineCount,
      dialect: opts.dialect,
      stageTimeoutMs: opts.stageTimeoutMs,
      sendTimeoutMs: opts.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
      signal: opts.signal,
      logger: opts.logger,
    });
  } catch (err) {
    // The handshake removes the socket files it recorded; one bound just as an abort came may not
    // be recorded yet. In directories made for this worker a leftover (dead) socket can only be
    // ours: it goes, and then the directories (when empty).
    if (createdDirs.length > 0) {
      await Promise.allSettled([removeStaleSocket(addresses.inputPath), removeStaleSocket(addresses.outputPath)]);
    }
    await removeCreatedDirs(createdDirs);
    throw err;
  }
  const mismatch = runtimeMismatch(opts.dialect.runtime, opts.url, hs.engines);
  if (mismatch !== null) {
    for (const s of [hs.input, hs.output]) if (!s.closed) s.close();
    await removeOwnSocketFiles(hs.socketFiles);
    await removeCreatedDirs(createdDirs);
    throw new HandshakeError('config', mismatch);
  }
  const client = new EngineClient(opts, addresses, hs);
  client.ownDirs(createdDirs);
  return client;
}

export class EngineClient implements EngineClientApi {
  readonly url: string;
  readonly runtime: RuntimeType;
  readonly registrations: readonly Registration[];
  readonly maxModelLen: number;
  readonly addresses: EngineAddresses;

  private readonly dialect: Dialect;
  private readonly logger: Logger;
  private readonly input: zmq.Router;
  private readonly output: zmq.Pull;
  private readonly hs: HandshakeResult;
  /** Engine index → routing identity, in identity order. */
  private readonly identities = new Map<number, Buffer>();
  private readonly table: RankTable;
  private readonly wave: WaveClock;
  private readonly sends: SendQueue;
  private readonly watchdog: SilenceWatchdog;
  private readonly probe: InputProbe | null;
  private readonly decodeErrors = new DecodeErrorRun();
  private readonly streams = new Map<string, EngineRequestStream>();
  /** The same ids, findable from their wire bytes (outputs name them on every step). */
  private readonly ids = new IdTable();
  private readonly deadListeners: ((err: EngineError) => void)[] = [];
  private readonly dropHandler = (id: string) => this.abort(id);
  /** Last resort: a request whose own handling threw is failed and logged; the reader goes on. */
  private readonly listenerErrorHandler = (id: string, err: unknown) => {
    this.logger.error(
      { worker: this.url, requestId: id, error: errText(err), stack: err instanceof Error ? err.stack : undefined },
      'request handling threw in the engine output reader; that request is aborted, the others go on',
    );
  };

  private live = true;
  private deadError: EngineError | null = null;
  private closePromise: Promise<void> | null = null;
  private createdDirs: readonly string[] = [];

  constructor(opts: EngineClientOptions, addresses: EngineAddresses, hs: HandshakeResult) {
    this.url = opts.url;
    this.dialect = opts.dialect;
    this.runtime = opts.dialect.runtime;
    this.logger = opts.logger;
    this.addresses = addresses;
    this.hs = hs;
    this.input = hs.input;
    this.output = hs.output;
    this.registrations = hs.engines.map((e) => e.registration);
    this.maxModelLen = Math.min(...this.registrations.map((r) => r.maxModelLen));
    for (const e of hs.engines) this.identities.set(e.index, e.identity);
    this.table = new RankTable(hs.engines.map((e) => e.index));
    this.wave = WaveClock.forRegistrations(this.registrations);
    const latch: DeathLatch = {
      url: this.url,
      logger: this.logger,
      isLive: () => this.live,
      // `readable` asks libzmq (a getsockopt); only a departed peer's settle timer calls this.
      outputPending: () => !this.output.closed && this.output.readable,
      die: (err, msg, extra) => this.die(err, msg, extra),
    };
    this.sends = new SendQueue(this.input, (err) => {
      if (this.live) dieOfSendFailure(latch, err);
    });
    const silenceMs = opts.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS;
    this.watchdog = new SilenceWatchdog(
      silenceMs,
      () => this.streams.size > 0,
      () =>
        this.die(
          new EngineDeathError('dead', ENGINE_DEAD_TEXT, 'silence'),
          `no engine output for ${formatSeconds(silenceMs)} with in-flight requests; treating engine as dead`,
        ),
    );
    const timing = { ...DEFAULT_INPUT_PROBE_TIMING, ...opts.inputProbeTiming };
    const ranks = [...this.identities.keys()];
    this.probe = opts.inputProbe
      ? createInputProbe(latch, opts.inputProbe, timing, this.table, ranks, (rank, frames) => this.sendTo(rank, frames))
      : null;
    watchPeers(latch, hs.inputPeers, 'input', ranks.length);
    watchPeers(latch, hs.outputPeers, 'output', ranks.length);
    this.logger.info(
      {
        worker: this.url,
        engines: hs.engines.map((e) => formatEngineId(e.identity)).join(','),
        lockstep: this.wave.lockstep,
        maxModelLen: this.maxModelLen,
      },
      'ZMQ engine group connected',
    );
    // The reader's own code does not throw (each request's handling is contained by its stream);
    // should it ever, this worker's requests fail with the error, not the process.
    this.readLoop().catch((err: unknown) => {
      this.die(new EngineDeathError('transport', `output reader failed: ${errText(err)}`, 'transport'), 'engine output reader threw', {
        stack: err instanceof Error ? err.stack : undefined,
      });
    });
  }

  get alive(): boolean {
    return this.live;
  }

  /** The reason the client latched dead, if it did. */
  get deathReason(): EngineError | null {
    return this.deadError;
  }

  get lockstep(): boolean {
    return this.wave.lockstep;
  }

  get inFlight(): number {
    return this.streams.size;
  }

  submit(req: EngineRequest): RequestStream {
    if (!this.live) throw new EngineError('closed', CLIENT_CLOSED_TEXT);
    const id = req.requestId;
    if (this.streams.has(id)) throw new EngineError('invalid', `request \`${id}\` is already in flight`);
    const rank = this.table.reserve(id, req.dataParallelRank);
    let frames: InputFrames;
    try {
      frames = this.dialect.encodeAdd(req);
    } catch (err) {
      this.table.release(id);
      if (err instanceof EngineError) throw err;
      // A guard refusal (WireFieldError) names its field; keep it for the 400's `param`.
      const field = (err as { field?: unknown }).field;
      throw new EngineError('invalid', errText(err), typeof field === 'string' ? field : null);
    }
    const stream = new EngineRequestStream(id, rank, this.dropHandler, this.listenerErrorHandler);
    const wasIdle = this.streams.size === 0;
    this.streams.set(id, stream);
    this.ids.add(id);
    if (wasIdle) this.watchdog.activate();
    this.sendTo(rank, frames);
    this.probe?.submitted(rank, performance.now());
    const wave = this.wave.afterAdd();
    if (wave !== null) this.broadcastWave(wave);
    return stream;
  }

  abort(requestId: string): void {
    const stream = this.streams.get(requestId);
    if (!stream) return;
    this.streams.delete(requestId);
    this.ids.delete(requestId);
    const rank = this.table.release(requestId);
    stream.finish();
    this.watchdog.touch();
    // vLLM answers an abort with nothing; late outputs for this id are dropped as unknown.
    if (this.live && rank !== null) this.sendTo(rank, this.dialect.encodeAbort([requestId]));
  }

  ranks(): RankState[] {
    return this.table.states();
  }

  onDead(listener: (err: EngineError) => void): void {
    if (this.deadError) {
      const err = this.deadError;
      queueMicrotask(() => listener(err));
      return;
    }
    this.deadListeners.push(listener);
  }

  close(): Promise<void> {
    if (!this.closePromise) this.closePromise = this.doClose();
    return this.closePromise;
  }

  /** Directories this client's bind created: removed (when empty) with its socket files. */
  ownDirs(dirs: readonly string[]): void {
    this.createdDirs = dirs;
  }

  private async doClose(): Promise<void> {
    this.live = false;
    this.failAll(new EngineError('closed', CLIENT_CLOSED_TEXT));
    this.shutdownSockets();
    await removeOwnSocketFiles(this.hs.socketFiles);
    await removeCreatedDirs(this.createdDirs);
  }

  // ------------------------------------------------------------------ sending

  private sendTo(rank: number, frames: InputFrames): void {
    const identity = this.identities.get(rank);
    if (!identity) return;
    this.sends.enqueue([identity, ...frames]);
  }

  /** START_DP_WAVE to every rank in identity order, the holder included. */
  private broadcastWave(wave: number): void {
    const frames = this.dialect.encodeStartWave(wave);
    if (!frames) return;
    for (const identity of this.identities.values()) this.sends.enqueue([identity, ...frames]);
  }

  // ------------------------------------------------------------------ receiving

  private async readLoop(): Promise<void> {
    const out = this.output;
    let sliceEnd = performance.now() + READ_SLICE_MS;
    for (;;) {
      let frames: Buffer[];
      try {
        frames = await out.receive();
      } catch (err) {
        if (!this.live) return;
        if (out.closed) this.die(new EngineDeathError('closed', OUTPUT_ENDED_TEXT, 'output_ended'), 'engine output stream ended');
        else this.die(new EngineDeathError('transport', `transport error: ${errText(err)}`, 'transport'), 'engine output socket failed');
        return;
      }
      this.onMessage(frames);
      if (!this.live) return;
      // Once a slice is spent, a reader with messages still queued yields (read-pressure.ts); one
      // whose socket is empty starts a new slice. `readable` costs a getsockopt: not per message.
      if (performance.now() >= sliceEnd) {
        if (out.readable) {
          sliceEnd = await yieldSpentSlice();
          if (!this.live) return;
        } else {
          sliceEnd = performance.now() + READ_SLICE_MS;
        }
      }
    }
  }

  private onMessage(frames: Buffer[]): void {
    const now = performance.now();
    this.watchdog.touchAt(now);
    let ev: OutputEvent;
    try {
      ev = this.dialect.decodeOutput(frames, this.ids);
    } catch (err) {
      const text = errText(err);
      if (this.decodeErrors.record()) {
        this.die(
          new EngineDeathError('decode', text, 'decode'),
          'engine output undecodable repeatedly; failing all in-flight requests',
          { error: text },
        );
      } else {
        this.logger.warn({ worker: this.url, error: text }, 'ignoring undecodable engine output');
      }
      return;
    }
    if (ev.kind === 'dead') {
      this.die(new EngineDeathError('dead', ENGINE_DEAD_TEXT, 'sentinel'), 'received ENGINE_CORE_DEAD sentinel from engine');
      return;
    }
    this.decodeErrors.reset();
    this.probe?.heard(ev.engineIndex, now);
    switch (ev.kind) {
      case 'batch':
        this.onBatch(ev);
        return;
      case 'wave_complete':
      case 'start_wave':
        this.onWaveMessage(ev);
        return;
      case 'utility':
        if (!this.probe?.isOurCall(ev.callId)) {
          this.logger.debug({ worker: this.url, callId: ev.callId }, 'ignoring engine utility reply');
        }
        return;
    }
  }

  private onBatch(ev: Extract<OutputEvent, { kind: 'batch' }>): void {
    // Load first, so a rank emptied by this batch drops the stale counts the batch carried.
    if (ev.load) this.table.storeLoad(ev.engineIndex, ev.load);
    for (const o of ev.outputs) {
      const stream = this.streams.get(o.requestId);
      if (!stream) continue; // aborted or unknown: late outputs are dropped
      // The normalized output already is the chunk: passed on without a copy per engine step.
      stream.push(o);
      if (o.finish !== null) this.complete(o.requestId, stream);
    }
    if (ev.finishedRequests) {
      for (const id of ev.finishedRequests) {
        const stream = this.streams.get(id);
        if (!stream) {
          this.table.release(id);
          continue;
        }
        // The engine says it is done with a request it gave no terminal output for; end the
        // stream as aborted rather than leave it waiting for the silence watchdog.
        stream.push({ newTokenIds: [], finish: 'abort', stopReason: null, logprobs: null, cachedTokens: null, errorMessage: null });
        this.complete(id, stream);
      }
    }
  }

  private complete(id: string, stream: EngineRequestStream): void {
    this.streams.delete(id);
    this.ids.delete(id);
    this.table.release(id);
    stream.finish();
  }

  private onWaveMessage(ev: Extract<OutputEvent, { kind: 'wave_complete' | 'start_wave' }>): void {
    if (!this.wave.lockstep) {
      this.logger.debug({ worker: this.url }, 'wave notification from independent ranks; ignoring');
      return;
    }
    if (ev.kind === 'wave_complete') {
      this.wave.onWaveComplete(ev.wave);
      return;
    }
    const wave = this.wave.onStartWave(ev.wave);
    if (wave !== null) this.broadcastWave(wave);
  }

  // ------------------------------------------------------------------ death

  /** Latches the client dead: every in-flight request fails with `err`, sockets are released. */
  private die(err: EngineError, logMsg: string, extra: Record<string, unknown> = {}): void {
    if (!this.live) return;
    this.live = false;
    this.deadError = err;
    this.logger.error({ worker: this.url, inFlight: this.streams.size, ...extra }, logMsg);
    this.failAll(err);
    this.shutdownSockets();
    for (const listener of this.deadListeners.splice(0)) {
      try {
        listener(err);
      } catch (e) {
        this.logger.error({ worker: this.url, error: errText(e) }, 'engine death listener threw');
      }
    }
  }

  private failAll(err: EngineError): void {
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.ids.clear();
    this.table.clear();
    for (const s of streams) s.fail(err);
  }

  private shutdownSockets(): void {
    this.watchdog.stop();
    this.probe?.stop();
    this.sends.clear();
    for (const s of [this.input, this.output]) if (!s.closed) s.close();
  }
}
