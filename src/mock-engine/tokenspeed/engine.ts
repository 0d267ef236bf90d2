/**
 * The TokenSpeed mock process: N attention-DP ranks (identities base+rank) sharing one event loop,
 * the way `tokenspeed serve --headless --data-parallel-size N` runs N schedulers. Owns startup,
 * faults, crashes and shutdown; the ranks own serving.
 */
import {
  defaultRegistrationInfo,
  encodeTokenSpeedRegistration,
  tokenspeedDeathFrame,
  tokenspeedEngineIndex,
} from '../wire/tokenspeed/index.js';
import type { Logger } from '../../util/logger.js';
import { DEFAULT_MAX_MODEL_LEN } from '../engine.js';
import { chooseGenerator } from '../generator.js';
import { StartupError } from '../handshake.js';
import { MockProcess } from '../lifecycle.js';
import { EXTRA_LOAD_STEP_MS, parseRankLoads } from '../rank-load.js';
import { RankScheduler } from '../scheduler.js';
import { tick } from '../signal.js';
import { registrationDtype, tsHandshakeAddress, type TsMockArgs } from './args.js';
import { engineEosIds } from './eos.js';
import { tokenspeedHandshake } from './handshake.js';
import { TsRank, type TsRankConfig, type TsRankHost } from './rank.js';

/** What the mock scripts when no --mock-text is given. */
export const TS_DEFAULT_TEXT = 'Hello! This is a scripted reply from the smg TokenSpeed mock engine.';

export class TsMockEngine extends MockProcess<TsRank> implements TsRankHost {
  readonly logRequests: boolean;

  constructor(
    private readonly args: TsMockArgs,
    logger: Logger,
  ) {
    super(args, logger, 'engine');
    this.logRequests = args.logRequests;
  }

  protected async start(): Promise<void> {
    const a = this.args;
    // Checked while building the registration, i.e. before HELLO, like the real engine.
    const dtype = registrationDtype(a.dtype);
    if (dtype === null) throw new StartupError(`dtype ${a.dtype} is not supported: only bfloat16, float16 and float32 models can be served headless`);
    const maxModelLen = a.contextLength ?? DEFAULT_MAX_MODEL_LEN;
    const eos = engineEosIds(a.model, a.eosTokenIds);
    const choice = chooseGenerator({ mode: a.mode, model: a.model, text: a.text ?? TS_DEFAULT_TEXT, countBase: a.countBase, replies: a.replies });
    const address = tsHandshakeAddress(a);
    const indices = Array.from({ length: a.dpSize }, (_, r) => tokenspeedEngineIndex(a.zmqEngineIndex, r));
    this.logger.info(
      `mock TokenSpeed engine: model=${a.model} engines=${indices.join(',')} generation=${choice.detail} ` +
        `context_length=${maxModelLen} eos=[${eos.ids.join(',')}] (${eos.source}) grammar_backend=${a.grammarBackend} ` +
        `output_logprobs=${a.enableOutputLogprobs} output_arity=${a.outputArity} handshake=${address}`,
    );
    const pageSize = a.prefixGranularity;
    const registration = (rank: number) =>
      encodeTokenSpeedRegistration(
        defaultRegistrationInfo({
          maxModelLen,
          numGpuBlocks: a.kvPages,
          prefixGranularity: a.prefixGranularity,
          dtype,
          vllmVersion: `tokenspeed-${a.version}`,
          worldSize: a.dpSize * a.tensorParallelSize,
          dataParallelSize: a.dpSize,
          tensorParallelSize: a.tensorParallelSize,
          dataParallelRank: rank,
          maxNumSeqs: a.maxNumSeqs,
          maxNumBatchedTokens: a.chunkedPrefillSize,
          instanceId: a.servedModelName ?? a.model,
          kvCacheSizeTokens: a.kvPages * pageSize,
        }),
        a.registrationKey,
      );
    const sockets = await Promise.all(
      indices.map((engineIndex, rank) =>
        tokenspeedHandshake({
          engineIndex,
          address,
          initTimeoutMs: a.initTimeoutS * 1000,
          loadDelayMs: a.loadDelayMs,
          registration: () => registration(rank),
          logger: this.logger,
          stopped: () => this.stopped,
        }),
      ),
    );
    if (this.stopped || sockets.some((s) => s === null)) {
      for (const s of sockets) {
        s?.input.close();
        s?.output.close();
      }
      return;
    }
    const cfg: TsRankConfig = {
      admission: { enableOutputLogprobs: a.enableOutputLogprobs, grammarBackend: a.grammarBackend, vocabSize: a.vocabSize },
      eosIds: eos.ids,
      maxModelLen,
      streamInterval: a.streamInterval,
      arity: a.outputArity,
      kvPages: a.kvPages,
      pageSize,
    };
    const schedCfg = {
      maxModelLen,
      maxNumSeqs: a.maxNumSeqs,
      // 0 means "no cap" on TokenSpeed.
      maxNumBatchedTokens: a.chunkedPrefillSize > 0 ? a.chunkedPrefillSize : Number.MAX_SAFE_INTEGER,
      blockSize: pageSize,
      numGpuBlocks: a.kvPages,
      logStats: false,
    };
    this.ranks = indices.map((engineIndex, i) => {
      const s = sockets[i]!;
      return new TsRank(engineIndex, s.input, s.output, new RankScheduler(schedCfg, choice.generator), cfg, this);
    });
    const extra = parseRankLoads(a.rankLoad, 0x10000);
    for (const r of this.ranks) r.extraLoad = extra.find((l) => l.rank === r.engineIndex) ?? null;
    // All ranks are registered: the real ranks meet at a barrier here before they serve.
    this.logger.info(`serving: ${this.ranks.length} engine(s) registered`);
    for (const r of this.ranks) {
      void r.readInput();
      void this.drive(r);
    }
    this.faults.onServing(this.ranks[0].engineIndex);
  }

  /** A rank's scheduler loop: one step per tick while it has work; idle ranks send nothing. */
  private async drive(rank: TsRank): Promise<void> {
    while (!this.stopped) {
      // Extra (--mock-rank-load) requests keep an engine stepping, so its snapshot keeps coming.
      if (this.frozen || !(rank.sched.hasWork || rank.extraLoad)) {
        await this.work.wait();
        continue;
      }
      rank.step(performance.now() / 1000);
      // Only an engine kept busy by injected load alone slows to the snapshot cadence.
      const idleWithLoad = !rank.sched.hasWork && rank.extraLoad !== null;
      await tick(idleWithLoad ? Math.max(this.args.tokenDelayMs, EXTRA_LOAD_STEP_MS) : this.args.tokenDelayMs);
    }
  }

  protected rankId(r: TsRank): number {
    return r.engineIndex;
  }

  /** A scheduler exception: every rank sends the sentinel best-effort, the supervisor exits 1 (§7). */
  crash(reason: string): void {
    if (this.stopped) return;
    this.logger.error(`scheduler crashed: ${reason}; sending ENGINE_CORE_DEAD`);
    // In-flight requests get no terminal rows, only the sentinel.
    void this.die([tokenspeedDeathFrame()], 1);
  }

  protected injectedDeath(reason: string): void {
    this.crash(reason);
  }

  /** Graceful stop: the loops finish their iteration, each rank sends the sentinel, exit 0. */
  protected async shutdown(sig: string): Promise<void> {
    if (this.stopped) return;
    this.logger.info(`${sig} received: shutting down (${this.ranks.reduce((n, r) => n + r.inFlight, 0)} in flight)`);
    await this.die([tokenspeedDeathFrame()], 0);
  }
}
