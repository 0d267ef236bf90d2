/**
 * The one shutdown path of `smg serve` and `smg launch` (spec cli-and-api §2.11): drain the
 * gateway first, then stop the engines (serve only), then exit. Exit codes: 128 + signal number
 * for signals (130 SIGINT, 143 SIGTERM), otherwise the code the caller asks for (0 normal, 1 error).
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
  /** The engines to stop after the drain; absent for `smg launch` (gateway only). */
  readonly engines?: EngineStopper;
  /** Readiness → draining, settle, stop accepting, wait for in-flight requests. */
  readonly drainGateway?: () => Promise<void>;
  readonly exit: (code: number) => void;
  readonly log?: LogFn;
}

/**
 * Log texts. With engines they are the SMG launcher's (`Received signal 2, shutting down
 * workers…`); the gateway alone names the signal the way `smg launch` always has.
 */
interface ShutdownTexts {
  received(signal: NodeJS.Signals, signo: number): string;
  again(signal: NodeJS.Signals, signo: number): string;
  drainFailed(message: string): string;
}

const WITH_ENGINES: ShutdownTexts = {
  received: (_signal, signo) => `Received signal ${signo}, shutting down workers…`,
  again: (_signal, signo) => `Received signal ${signo} again, killing workers now`,
  drainFailed: (message) => `Gateway drain failed: ${message}`,
};

const GATEWAY_ONLY: ShutdownTexts = {
  received: (signal) => `Received ${signal}, shutting down…`,
  again: (signal) => `Received ${signal} again; exiting without waiting for the drain`,
  drainFailed: (message) => `Error during shutdown: ${message}`,
};

export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export class ShutdownController {
  private stopping = false;
  private readonly log: LogFn;
  private readonly texts: ShutdownTexts;
  private drainGateway: (() => Promise<void>) | undefined;

  constructor(private readonly opts: ShutdownControllerOptions) {
    this.log = opts.log ?? (() => {});
    this.texts = opts.engines ? WITH_ENGINES : GATEWAY_ONLY;
    this.drainGateway = opts.drainGateway;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** The gateway's drain hook is wired once it has bound; the controller (and its signal handlers) exist earlier. */
  setDrainGateway(drain: () => Promise<void>): void {
    this.drainGateway = drain;
  }

  async onSignal(signal: NodeJS.Signals): Promise<void> {
    const signo = constants.signals[signal] ?? 0;
    if (this.stopping) {
      this.log('warn', this.texts.again(signal, signo));
      this.opts.engines?.killAll('SIGKILL');
      this.opts.exit(signalExitCode(signal));
      return;
    }
    this.stopping = true;
    this.log('info', this.texts.received(signal, signo));
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
        this.log('error', this.texts.drainFailed((err as Error).message));
      }
    }
    await this.opts.engines?.shutdown();
  }
}
