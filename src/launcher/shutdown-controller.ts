/**
 * What `smg serve` does when it must stop (spec cli-and-api §2.11): drain the gateway first, then
 * stop the engines, then exit. Exit codes: 128 + signal number for signals (130 SIGINT, 143
 * SIGTERM), otherwise the code the caller asks for (0 normal, 1 error).
 *
 * SMG ignores a second signal during the drain; we force-exit on it (allowed by the spec) so a
 * user is never stuck behind a 180 s drain: engines get SIGKILL and the process exits at once.
 */
import { constants } from 'node:os';
import type { LogFn } from './engine-process.js';

export interface EngineStopper {
  shutdown(): Promise<void>;
  killAll(signal: NodeJS.Signals): void;
}

export interface ShutdownControllerOptions {
  readonly engines: EngineStopper;
  /** Readiness → draining, settle, stop accepting, wait for in-flight requests. */
  readonly drainGateway?: () => Promise<void>;
  readonly exit: (code: number) => void;
  readonly log?: LogFn;
}

export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export class ShutdownController {
  private stopping = false;
  private readonly log: LogFn;
  private drainGateway: (() => Promise<void>) | undefined;

  constructor(private readonly opts: ShutdownControllerOptions) {
    this.log = opts.log ?? (() => {});
    this.drainGateway = opts.drainGateway;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** The gateway's drain hook may be wired after engines start; the controller exists earlier. */
  setDrainGateway(drain: () => Promise<void>): void {
    this.drainGateway = drain;
  }

  async onSignal(signal: NodeJS.Signals): Promise<void> {
    const signo = constants.signals[signal] ?? 0;
    if (this.stopping) {
      this.log('warn', `Received signal ${signo} again, killing workers now`);
      this.opts.engines.killAll('SIGKILL');
      this.opts.exit(signalExitCode(signal));
      return;
    }
    this.stopping = true;
    this.log('info', `Received signal ${signo}, shutting down workers…`);
    await this.drainThenStop();
    this.opts.exit(signalExitCode(signal));
  }

  /**
   * Normal end (the gateway returned) or a fatal error: stop the engines and exit with `code`.
   * A no-op when a signal-driven shutdown already owns the exit.
   */
  async finish(code: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.drainThenStop();
    this.opts.exit(code);
  }

  private async drainThenStop(): Promise<void> {
    if (this.drainGateway) {
      try {
        await this.drainGateway();
      } catch (err) {
        this.log('error', `Gateway drain failed: ${(err as Error).message}`);
      }
    }
    await this.opts.engines.shutdown();
  }
}
