/**
 * The one shutdown path of `smg serve` and `smg launch` (spec cli-and-api §2.11): drain the
 * gateway first, then stop the engines (serve only), then exit. Exit codes: 128 + signal number
 * for signals (130 SIGINT, 143 SIGTERM), otherwise the code the caller asks for (0 normal, 1 error).
 *
 * SMG ignores a second signal during the drain; we force-exit on it (allowed by the spec) so a
 * user is never stuck behind a 180 s drain: engines get SIGKILL and the process exits at once.
 * The same signal again within a second is not a second request but one request delivered twice:
 * `timeout N smg serve` signals the process and then its process group, and a supervisor may do
 * likewise. It is logged and otherwise ignored, so the drain still runs.
 */
import { constants } from 'node:os';
import type { LogFn } from './engine-process.js';

export interface EngineStopper {
  shutdown(): Promise<void>;
  killAll(signal: NodeJS.Signals): void;
}

/** A repeat of the same signal within this window counts as the first one. */
export const REPEAT_SIGNAL_WINDOW_MS = 1000;

export interface ShutdownControllerOptions {
  /** The engines to stop after the drain; absent for `smg launch` (gateway only). */
  readonly engines?: EngineStopper;
  /** Readiness → draining, settle, stop accepting, wait for in-flight requests. */
  readonly drainGateway?: () => Promise<void>;
  readonly exit: (code: number) => void;
  readonly log?: LogFn;
  readonly now?: () => number;
}

export interface FinishOptions {
  /**
   * False skips the drain and runs the abort hook instead (start-up failed: no client was ever
   * told the gateway is ready, so waiting for one is pointless). Default true.
   */
  readonly drain?: boolean;
}

/**
 * Log texts. With engines they are the SMG launcher's (`Received signal 2, shutting down
 * workers…`); the gateway alone names the signal the way `smg launch` always has.
 */
interface ShutdownTexts {
  received(signal: NodeJS.Signals, signo: number): string;
  again(signal: NodeJS.Signals, signo: number): string;
  repeated(signal: NodeJS.Signals, signo: number): string;
  drainFailed(message: string): string;
}

const repeatedText = (what: string): string =>
  `Received ${what} again within ${REPEAT_SIGNAL_WINDOW_MS / 1000}s; counting it as the same request (send it again later to stop at once)`;

const WITH_ENGINES: ShutdownTexts = {
  received: (_signal, signo) => `Received signal ${signo}, shutting down workers…`,
  again: (_signal, signo) => `Received signal ${signo} again, killing workers now`,
  repeated: (_signal, signo) => repeatedText(`signal ${signo}`),
  drainFailed: (message) => `Gateway drain failed: ${message}`,
};

const GATEWAY_ONLY: ShutdownTexts = {
  received: (signal) => `Received ${signal}, shutting down…`,
  again: (signal) => `Received ${signal} again; exiting without waiting for the drain`,
  repeated: (signal) => repeatedText(signal),
  drainFailed: (message) => `Error during shutdown: ${message}`,
};

export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export class ShutdownController {
  private stopping = false;
  private readonly log: LogFn;
  private readonly texts: ShutdownTexts;
  private readonly now: () => number;
  private drainGateway: (() => Promise<void>) | undefined;
  private abortGateway: (() => Promise<void>) | undefined;
  /** The signal that started the shutdown, and when. */
  private first: { signal: NodeJS.Signals; at: number } | undefined;

  constructor(private readonly opts: ShutdownControllerOptions) {
    this.log = opts.log ?? (() => {});
    this.texts = opts.engines ? WITH_ENGINES : GATEWAY_ONLY;
    this.drainGateway = opts.drainGateway;
    this.now = opts.now ?? Date.now;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** The gateway's drain hook is wired once it has bound; the controller (and its signal handlers) exist earlier. */
  setDrainGateway(drain: () => Promise<void>, abort?: () => Promise<void>): void {
    this.drainGateway = drain;
    this.abortGateway = abort;
  }

  async onSignal(signal: NodeJS.Signals): Promise<void> {
    const signo = constants.signals[signal] ?? 0;
    const now = this.now();
    if (this.stopping) {
      const first = this.first;
      if (first && first.signal === signal && now - first.at < REPEAT_SIGNAL_WINDOW_MS) {
        this.log('info', this.texts.repeated(signal, signo));
        return;
      }
      this.log('warn', this.texts.again(signal, signo));
      this.opts.engines?.killAll('SIGKILL');
      this.opts.exit(signalExitCode(signal));
      return;
    }
    this.stopping = true;
    this.first = { signal, at: now };
    this.log('info', this.texts.received(signal, signo));
    await this.drainThenStop(true);
    this.opts.exit(signalExitCode(signal));
  }

  /**
   * Normal end (the gateway returned) or a fatal error: stop the engines and exit with `code`.
   * A no-op when a signal-driven shutdown already owns the exit.
   */
  async finish(code: number, opts: FinishOptions = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.drainThenStop(opts.drain ?? true);
    this.opts.exit(code);
  }

  private async drainThenStop(drain: boolean): Promise<void> {
    const gateway = drain ? this.drainGateway : (this.abortGateway ?? this.drainGateway);
    if (gateway) {
      try {
        await gateway();
      } catch (err) {
        this.log('error', this.texts.drainFailed((err as Error).message));
      }
    }
    await this.opts.engines?.shutdown();
  }
}
