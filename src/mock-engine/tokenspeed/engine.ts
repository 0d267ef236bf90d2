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
} from '../../engine/dialects/tokenspeed/index.js';
import type { Logger } from '../../util/logger.js';
import { GARBAGE_FRAME } from '../codec.js';
import { DEFAULT_MAX_MODEL_LEN } from '../engine.js';
import { FaultTrigger } from '../faults.js';
import { chooseGenerator } from '../generator.js';
import { StartupError } from '../handshake.js';
import { EXTRA_LOAD_STEP_MS, parseRankLoads } from '../rank-load.js';
import { RankScheduler } from '../scheduler.js';
import { Signal, tick } from '../signal.js';
import { registrationDtype, tsHandshakeAddress, type TsFaultMode, type TsMockArgs } from './args.js';
import { engineEosIds } from './eos.js';
import { tokenspeedHandshake } from './handshake.js';
import { TsRank, type TsRankConfig, type TsRankHost } from './rank.js';

/** What the mock scripts when no --mock-text is given. */
export const TS_DEFAULT_TEXT = 'Hello! This is a scripted reply from the smg TokenSpeed mock engine.';

export class TsMockEngine implements TsRankHost {
  readonly work = new Signal();
  readonly faults: FaultTrigger;
  readonly logRequests: boolean;
  silent = false;
  frozen = false;
  stopped = false;
  private ranks: TsRank[] = [];
  private exitCode: ((code: number) => void) | null = null;

  constructor(
    private readonly args: TsMockArgs,
    readonly logger: Logger,
  ) {
    this.logRequests = args.logRequests;
    this.faults = new FaultTrigger(
      { mode: args.fault, afterTokens: args.faultAfterTokens, onRequest: args.faultOnRequest },
      (mode, engine, why) => this.fireFault(mode as TsFaultMode, engine, why),
    );
  }

  /** Resolves with the process exit code. */
  async run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.exitCode = resolve));
    // zeromq.js only holds the loop open while a socket operation is pending.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const onTerm = (sig: string) => void this.shutdown(sig);
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onTerm);
    void this.start().catch((err) => {
      const msg = err instanceof StartupError ? err.message : `startup failed: ${(err as Error).stack ?? err}`;
      // Startup failures happen before any output socket exists: no sentinel (§2.1).
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
    // Checked while building the registration, i.e. before HELLO, like the real engine.
    const dtype = registrationDtype(a.dtype);
    if (dtype === null) throw new StartupError(`dtype ${a.dtype} is not supported: only bfloat16, float16 and float32 models can be served headless`);
    const maxModelLen = a.contextLength ?? DEFAULT_MAX_MODEL_LEN;
    const eos = engineEosIds(a.model, a.eosTokenIds);
    const choice = chooseGenerator({ mode: a.mode, model: a.model, text: a.text ?? TS_DEFAULT_TEXT, countBase: a.countBase });
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

  /** A scheduler exception: every rank sends the sentinel best-effort, the supervisor exits 1 (§7). */
  crash(reason: string): void {
    if (this.stopped) return;
    this.logger.error(`scheduler crashed: ${reason}; sending ENGINE_CORE_DEAD`);
    void this.die(1);
  }

  private async die(code: number): Promise<void> {
    this.stopped = true;
    this.work.notify();
    // In-flight requests get no terminal rows, only the sentinel.
    await Promise.all(this.ranks.map((r) => r.sendRaw([tokenspeedDeathFrame()])));
    for (const r of this.ranks) r.closeSockets();
    this.finish(code);
  }

  private fireFault(mode: TsFaultMode, engine: number, why: string): void {
    this.logger.warn(`fault '${mode}' fired ${why} (engine ${engine})`);
    switch (mode) {
      case 'dead':
        this.crash('injected fault (--mock-fault dead)');
        return;
      case 'silent':
        this.silent = true;
        this.frozen = true;
        return;
      case 'garbage': {
        const r = this.ranks.find((x) => x.engineIndex === engine);
        for (let i = 0; i < this.args.garbageCount; i++) void r?.sendRaw([GARBAGE_FRAME]);
        return;
      }
      case 'exit':
        // Like SIGKILL/OOM: nothing is sent, nothing is closed.
        process.kill(process.pid, 'SIGKILL');
        return;
    }
  }

  /** Graceful stop: the loops finish their iteration, each rank sends the sentinel, exit 0. */
  private async shutdown(sig: string): Promise<void> {
    if (this.stopped) return;
    this.logger.info(`${sig} received: shutting down (${this.ranks.reduce((n, r) => n + r.inFlight, 0)} in flight)`);
    await this.die(0);
  }

  private finish(code: number): void {
    this.stopped = true;
    this.exitCode?.(code);
    this.exitCode = null;
  }
}
