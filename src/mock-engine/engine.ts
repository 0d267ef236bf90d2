/**
 * The mock engine process: N local ranks sharing one event loop, the way `vllm serve --headless
 * --data-parallel-size-local N` starts N engine processes. Owns startup, faults, fatal death and
 * SIGTERM shutdown; the ranks and drivers own serving.
 */
import type { Logger } from '../util/logger.js';
import { handshakeAddress, type MockArgs } from './args.js';
import { runDense, runLockstep } from './driver.js';
import { chooseGenerator } from './generator.js';
import { handshakeRank, type RankSockets } from './handshake.js';
import { MockProcess } from './lifecycle.js';
import type { FaultMode } from './mock-flags.js';
import { MockRank, type RankCodec, type RankHost } from './rank.js';
import { encodeRegistration } from './wire/vllm/index.js';
import { registrationFor } from './registration.js';
import { RankScheduler } from './scheduler.js';
import { sleep } from './signal.js';
import { ENGINE_CORE_DEAD_FRAME } from './codec.js';
import { parseRankLoads } from './rank-load.js';

export const DEFAULT_MAX_MODEL_LEN = 4096;

export class MockEngine extends MockProcess<MockRank> implements RankHost {
  readonly lockstep: boolean;
  readonly logStats: boolean;
  readonly abortReply: boolean;
  readonly logRequests: boolean;
  readonly tokenDelayMs: number;
  shuttingDown = false;
  inputStall: Promise<void> | null = null;

  constructor(
    private readonly args: MockArgs,
    logger: Logger,
    readonly codec: RankCodec,
  ) {
    super(args, logger, 'rank');
    this.lockstep = args.lockstep;
    this.logStats = !args.disableLogStats;
    this.abortReply = args.abortReply;
    this.logRequests = args.logRequests;
    this.tokenDelayMs = args.tokenDelayMs;
  }

  protected async start(): Promise<void> {
    const a = this.args;
    const maxModelLen = a.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
    const choice = chooseGenerator({ mode: a.mode, model: a.model, text: a.text, countBase: a.countBase, replies: a.replies });
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
      prefixCaching: a.enablePrefixCaching,
      priorityScheduling: a.schedulingPolicy === 'priority',
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

  protected rankId(r: MockRank): number {
    return r.rank;
  }

  /** Engine death as vLLM does it: the sentinel on every output socket, a linger, exit 1. */
  fatal(reason: string): void {
    if (this.stopped) return;
    this.logger.error(`EngineCore encountered a fatal error: ${reason}; sending ENGINE_CORE_DEAD`);
    void this.die([ENGINE_CORE_DEAD_FRAME], 1);
  }

  protected injectedDeath(reason: string): void {
    this.fatal(reason);
  }

  protected override backendFault(mode: FaultMode): void {
    if (mode === 'stall-input') this.inputStall = new Promise<void>(() => {});
  }

  /** SIGTERM: abort in-flight requests with ABORT outputs, then exit 0 without a sentinel. */
  protected async shutdown(sig: string): Promise<void> {
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
}
