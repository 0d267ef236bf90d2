/**
 * The mock engine process: N local ranks sharing one event loop, the way `vllm serve --headless
 * --data-parallel-size-local N` starts N engine processes. Owns startup, faults, fatal death and
 * SIGTERM shutdown; the ranks and drivers own serving.
 */
import type { Logger } from '../util/logger.js';
import { type FaultMode, handshakeAddress, type MockArgs } from './args.js';
import { runDense, runLockstep } from './driver.js';
import { FaultTrigger } from './faults.js';
import { chooseGenerator } from './generator.js';
import { handshakeRank, StartupError, type RankSockets } from './handshake.js';
import { MockRank, type RankCodec, type RankHost } from './rank.js';
import { encodeRegistration } from '../engine/dialects/vllm/index.js';
import { registrationFor } from './registration.js';
import { RankScheduler } from './scheduler.js';
import { Signal, sleep } from './signal.js';
import { ENGINE_CORE_DEAD_FRAME, GARBAGE_FRAME } from './codec.js';
import { parseRankLoads } from './rank-load.js';

export const DEFAULT_MAX_MODEL_LEN = 4096;

export class MockEngine implements RankHost {
  readonly work = new Signal();
  readonly faults: FaultTrigger;
  readonly lockstep: boolean;
  readonly logStats: boolean;
  readonly abortReply: boolean;
  readonly logRequests: boolean;
  readonly tokenDelayMs: number;
  shuttingDown = false;
  silent = false;
  frozen = false;
  stopped = false;
  inputStall: Promise<void> | null = null;
  private ranks: MockRank[] = [];
  private exitCode: ((code: number) => void) | null = null;

  constructor(
    private readonly args: MockArgs,
    readonly logger: Logger,
    readonly codec: RankCodec,
  ) {
    this.lockstep = args.lockstep;
    this.logStats = !args.disableLogStats;
    this.abortReply = args.abortReply;
    this.logRequests = args.logRequests;
    this.tokenDelayMs = args.tokenDelayMs;
    this.faults = new FaultTrigger(
      { mode: args.fault, afterTokens: args.faultAfterTokens, onRequest: args.faultOnRequest },
      (mode, rank, why) => this.fireFault(mode, rank, why),
    );
  }

  /** Resolves with the process exit code. */
  async run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.exitCode = resolve));
    // zeromq.js holds the event loop open only while a socket operation is pending; an idle engine
    // whose input thread died has none, and must still live on like the real one.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const onTerm = (sig: string) => void this.shutdown(sig);
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onTerm);
    void this.start().catch((err) => {
      const msg = err instanceof StartupError ? err.message : `startup failed: ${(err as Error).stack ?? err}`;
      this.logger.error(msg);
      this.finish(1);
    });
    const code = await done;
    clearInterval(keepAlive);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onTerm);
    return code;
  }

  private async start(): Promise<void> {
    const a = this.args;
    const maxModelLen = a.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
    const choice = chooseGenerator({ mode: a.mode, model: a.model, text: a.text, countBase: a.countBase });
    const rankIds = Array.from({ length: a.dpSizeLocal }, (_, i) => a.dpStartRank + i);
    const address = handshakeAddress(a);
    this.logger.info(
      `mock vLLM engine: model=${a.model} ranks=${rankIds.join(',')} ${a.lockstep ? `lockstep (data_parallel_size=${a.dpSize})` : 'dense'} ` +
        `generation=${choice.detail} max_model_len=${maxModelLen} handshake=${address}`,
    );
    const hash = a.lockstep && a.dpSize > 1 ? `mock-${a.dpSize}-${maxModelLen}` : undefined;
    const sockets: RankSockets[] = await Promise.all(
      rankIds.map((rank) =>
        handshakeRank({
          rank,
          address,
          initTimeoutMs: a.initTimeoutS * 1000,
          loadDelayMs: a.loadDelayMs,
          readyFirst: a.readyFirst,
          parallelConfigHash: hash,
          inputReceiveHwm: a.fault === 'stall-input' ? 1 : 0,
          registration: () => encodeRegistration(registrationFor(a, rank, maxModelLen)),
          logger: this.logger,
        }),
      ),
    );
    if (this.stopped) {
      for (const s of sockets) {
        s.input.close();
        s.output.close();
      }
      return;
    }
    const schedCfg = {
      maxModelLen,
      maxNumSeqs: a.maxNumSeqs,
      maxNumBatchedTokens: a.maxNumBatchedTokens,
      blockSize: a.blockSize,
      numGpuBlocks: a.numGpuBlocks,
      logStats: this.logStats,
    };
    this.ranks = rankIds.map(
      (rank, i) =>
        new MockRank(rank, sockets[i].input, sockets[i].output, new RankScheduler(schedCfg, choice.generator), this),
    );
    const extra = parseRankLoads(a.rankLoad, a.dpSize);
    for (const r of this.ranks) r.extraLoad = extra.find((l) => l.rank === r.rank) ?? null;
    this.logger.info(`serving: ${this.ranks.length} rank(s) registered and READY`);
    for (const r of this.ranks) void r.readInput();
    if (this.lockstep) void runLockstep(this.ranks, this);
    else for (const r of this.ranks) void runDense(r, this);
    this.faults.onServing(this.ranks[0].rank);
  }

  /** Engine death as vLLM does it: the sentinel on every output socket, a linger, exit 1. */
  fatal(reason: string): void {
    if (this.stopped) return;
    this.logger.error(`EngineCore encountered a fatal error: ${reason}; sending ENGINE_CORE_DEAD`);
    void this.die([ENGINE_CORE_DEAD_FRAME], 1);
  }

  private async die(frames: Buffer[], code: number): Promise<void> {
    this.stopped = true;
    this.work.notify();
    await Promise.all(this.ranks.map((r) => r.sendRaw(frames)));
    for (const r of this.ranks) r.closeSockets();
    this.finish(code);
  }

  private fireFault(mode: FaultMode, rank: number, why: string): void {
    this.logger.warn(`fault '${mode}' fired ${why} (rank ${rank})`);
    switch (mode) {
      case 'dead':
        this.fatal(`injected fault (--mock-fault dead)`);
        return;
      case 'silent':
        this.silent = true;
        this.frozen = true;
        return;
      case 'garbage': {
        const r = this.ranks.find((x) => x.rank === rank);
        for (let i = 0; i < this.args.garbageCount; i++) void r?.sendRaw([GARBAGE_FRAME]);
        return;
      }
      case 'stall-input':
        this.inputStall = new Promise<void>(() => {});
        return;
      case 'exit':
        // Like SIGKILL/OOM: no sentinel, no socket close, no exit handlers.
        process.kill(process.pid, 'SIGKILL');
        return;
    }
  }

  /** SIGTERM: abort in-flight requests with ABORT outputs, then exit 0 without a sentinel. */
  private async shutdown(sig: string): Promise<void> {
    if (this.shuttingDown || this.stopped) return;
    this.shuttingDown = true;
    this.logger.info(`${sig} received: shutting down`);
    let aborted = 0;
    for (const r of this.ranks) aborted += r.abortAllForShutdown();
    if (aborted > 0) this.logger.info(`aborted ${aborted} in-flight request(s)`);
    this.stopped = true;
    this.work.notify();
    await Promise.all(this.ranks.map((r) => r.flush()));
    // Give a racing ADD a moment to be answered with ABORT, as the engine does while it drains.
    await sleep(20);
    for (const r of this.ranks) r.closeSockets();
    this.finish(0);
  }

  private finish(code: number): void {
    this.stopped = true;
    this.exitCode?.(code);
    this.exitCode = null;
  }
}
