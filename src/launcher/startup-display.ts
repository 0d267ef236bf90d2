/**
 * Start-up progress for the operator: each engine from "launching" to "handshake done (context
 * length N)", then the gateway URL. A live spinner only on a real terminal; otherwise plain lines.
 *
 * The guard is ecosystem §1.8's: ora on a TTY that reports 0 columns divides by zero, floods the
 * terminal with clear-line codes and ignores SIGTERM; CI wants plain lines anyway.
 *
 * One ora instance shows every engine still pending (several instances on one stream erase each
 * other's lines); each engine that finishes is persisted as its own ✔/✖ line.
 */
import ora from 'ora';

export interface StartupDisplay {
  launching(index: number, url: string): void;
  handshakeDone(index: number, contextLength?: number): void;
  failed(index: number, reason: string): void;
  gatewayReady(url: string): void;
  /** Stop any animation (shutdown, or start-up finished); idempotent. */
  stop(): void;
}

/** The part of an ora spinner this module uses, so tests can pass a fake. */
export interface SpinnerLike {
  text: string;
  readonly isSpinning: boolean;
  start(text?: string): unknown;
  succeed(text?: string): unknown;
  fail(text?: string): unknown;
  info(text?: string): unknown;
  stop(): unknown;
}

export interface TerminalLike {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export function spinnerEnabled(stream: TerminalLike, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(stream.isTTY && (stream.columns ?? 0) > 0 && !env.CI);
}

export interface StartupDisplayOptions {
  /** Plain-line output when no spinner is shown (normally the logger). */
  readonly log: (line: string) => void;
  readonly stream?: NodeJS.WriteStream;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly createSpinner?: (stream: NodeJS.WriteStream) => SpinnerLike;
}

const label = (index: number): string => `engine-${index}`;

export function launchingText(index: number, url: string): string {
  return `${label(index)}: launching, waiting for handshake (${url})`;
}

export function handshakeText(index: number, contextLength?: number): string {
  return contextLength === undefined
    ? `${label(index)}: handshake done`
    : `${label(index)}: handshake done (context length ${contextLength})`;
}

export function failedText(index: number, reason: string): string {
  return `${label(index)}: ${reason}`;
}

export function gatewayText(url: string): string {
  return `Gateway listening on ${url}`;
}

export function createStartupDisplay(opts: StartupDisplayOptions): StartupDisplay {
  const stream = opts.stream ?? process.stderr;
  if (!spinnerEnabled(stream, opts.env ?? process.env)) return plainDisplay(opts.log);
  const make =
    opts.createSpinner ??
    ((s: NodeJS.WriteStream) =>
      // discardStdin off: ora would otherwise put stdin in raw mode and re-emit Ctrl-C itself.
      ora({ stream: s, isEnabled: true, discardStdin: false }));
  return spinnerDisplay(make(stream));
}

function plainDisplay(log: (line: string) => void): StartupDisplay {
  return {
    launching: (i, url) => log(launchingText(i, url)),
    handshakeDone: (i, n) => log(handshakeText(i, n)),
    failed: (i, reason) => log(failedText(i, reason)),
    gatewayReady: (url) => log(gatewayText(url)),
    stop: () => {},
  };
}

function spinnerDisplay(spinner: SpinnerLike): StartupDisplay {
  const pending = new Map<number, string>();
  let stopped = false;

  const render = (): void => {
    if (stopped) return;
    if (pending.size === 0) {
      if (spinner.isSpinning) spinner.stop();
      return;
    }
    const text = [...pending.values()].join('\n');
    if (spinner.isSpinning) spinner.text = text;
    else spinner.start(text);
  };
  // Persisting stops the spinner; render() restarts it for the engines still pending.
  const persist = (kind: 'succeed' | 'fail' | 'info', text: string): void => {
    if (stopped) return;
    spinner[kind](text);
    render();
  };

  return {
    launching(i, url) {
      pending.set(i, launchingText(i, url));
      render();
    },
    handshakeDone(i, n) {
      pending.delete(i);
      persist('succeed', handshakeText(i, n));
    },
    failed(i, reason) {
      pending.delete(i);
      persist('fail', failedText(i, reason));
    },
    gatewayReady(url) {
      persist('info', gatewayText(url));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (spinner.isSpinning) spinner.stop();
    },
  };
}
