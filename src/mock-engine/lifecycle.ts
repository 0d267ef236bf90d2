/**
 * The process shell both mock engines share: keep-alive, SIGTERM/SIGINT, startup failure, the
 * fault modes that act the same on either wire, and death with a sentinel. Each engine supplies
 * its startup, its shutdown and its sentinel.
 */
import { createLogger, type Logger } from '../util/logger.js';
import { GARBAGE_FRAME } from './codec.js';
import { FaultTrigger } from './faults.js';
import { StartupError } from './handshake.js';
import type { FaultMode, MockKnobs } from './mock-flags.js';
import { Signal, sleep } from './signal.js';

/** How long a dying engine waits after queueing its last frames (see die()). */
const SENTINEL_FLUSH_MS = 100;

/** What the shell needs of a rank: raw sends and closing its sockets. */
export interface RankSocketsHandle {
  sendRaw(frames: Buffer[]): Promise<void>;
  closeSockets(): void;
}

export abstract class MockProcess<R extends RankSocketsHandle> {
  readonly work = new Signal();
  readonly faults: FaultTrigger;
  /** `silent` fault: nothing leaves any rank any more. */
  silent = false;
  frozen = false;
  stopped = false;
  protected ranks: R[] = [];
  private exitCode: ((code: number) => void) | null = null;

  constructor(
    private readonly knobs: MockKnobs<FaultMode>,
    readonly logger: Logger,
    /** How log lines name a rank: `rank` (vLLM) or `engine` (TokenSpeed's engine index). */
    private readonly rankNoun: string,
  ) {
    this.faults = new FaultTrigger(
      { mode: knobs.fault, afterTokens: knobs.faultAfterTokens, onRequest: knobs.faultOnRequest },
      (mode, rank, why) => this.fireFault(mode, rank, why),
    );
  }

  /** Serving setup: handshakes, registration, rank loops. Runs once from run(). */
  protected abstract start(): Promise<void>;
  /** SIGTERM/SIGINT; must end in finish() or die(). */
  protected abstract shutdown(sig: string): Promise<void>;
  /** The injected `dead` fault: the engine's own fatal path. */
  protected abstract injectedDeath(reason: string): void;
  protected abstract rankId(rank: R): number;

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
      // Startup failures happen before any output socket is up: no sentinel on either wire.
      this.logger.error(msg);
      this.finish(1);
    });
    const code = await done;
    clearInterval(keepAlive);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onTerm);
    return code;
  }

  /** Every rank sends `frames` best-effort, then the sockets close and the process exits with `code`. */
  protected async die(frames: Buffer[], code: number): Promise<void> {
    this.stopped = true;
    this.work.notify();
    await Promise.all(this.ranks.map((r) => r.sendRaw(frames)));
    // A send resolves once zeromq has queued the frames, not sent them, and the process exits right
    // after: on a loaded box the sentinel was sometimes lost, and the gateway saw only the engine's
    // connection close ('engine disconnected', not 'engine core reported fatal failure'). vLLM
    // lingers up to 4 s on its output socket for the same reason; a short wait gets it out here.
    await sleep(SENTINEL_FLUSH_MS);
    for (const r of this.ranks) r.closeSockets();
    this.finish(code);
  }

  protected finish(code: number): void {
    this.stopped = true;
    this.exitCode?.(code);
    this.exitCode = null;
  }

  /** Faults only one backend injects (vLLM's `stall-input`); argv parsing admits no others. */
  protected backendFault(_mode: FaultMode): void {}

  private fireFault(mode: FaultMode, rank: number, why: string): void {
    this.logger.warn(`fault '${mode}' fired ${why} (${this.rankNoun} ${rank})`);
    switch (mode) {
      case 'dead':
        this.injectedDeath('injected fault (--mock-fault dead)');
        return;
      case 'silent':
        this.silent = true;
        this.frozen = true;
        return;
      case 'garbage': {
        const r = this.ranks.find((x) => this.rankId(x) === rank);
        for (let i = 0; i < this.knobs.garbageCount; i++) void r?.sendRaw([GARBAGE_FRAME]);
        return;
      }
      case 'exit':
        // Like SIGKILL/OOM: no sentinel, no socket close, no exit handlers.
        process.kill(process.pid, 'SIGKILL');
        return;
      default:
        this.backendFault(mode);
    }
  }
}

/** A mock process's logger, after the warnings about argv the mock does not honour. */
export function mockLogger(args: { logLevel: string | null; ignored: string[]; headless: boolean }): Logger {
  const logger = createLogger({ level: args.logLevel ?? undefined });
  if (args.ignored.length > 0) logger.warn(`ignoring engine flags the mock does not model: ${args.ignored.join(' ')}`);
  if (!args.headless) logger.warn('--headless not given; the mock engine always runs headless');
  return logger;
}
