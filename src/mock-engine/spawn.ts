/**
 * Test kit: run `smg mock-engine` as a child process the way a launcher runs vLLM, and watch its
 * log. Used by the mock engine's own e2e tests and by any gateway test that needs real engines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SMG_BIN = fileURLToPath(new URL('../../bin/smg.js', import.meta.url));

export interface SpawnMockOptions {
  /** Handshake port (`--data-parallel-rpc-port`). */
  port: number;
  /** Ranks in this process (data-parallel size and local size). Default 1. */
  ranks?: number;
  model?: string;
  /** Appended after the launcher-style flags (engine or `--mock-…` flags). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** The argv `smg serve` gives a real vLLM headless engine (cli-and-api §2.7.1), after `serve`. */
export function headlessServeArgv(model: string, ranks: number, port: number): string[] {
  return [
    'serve',
    model,
    '--headless',
    '--data-parallel-size',
    String(ranks),
    '--data-parallel-size-local',
    String(ranks),
    '--data-parallel-address',
    '127.0.0.1',
    '--data-parallel-rpc-port',
    String(port),
  ];
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class MockEngineProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<ExitStatus>;
  private watchers: { re: RegExp; resolve: (line: string) => void }[] = [];

  constructor(readonly child: ChildProcess) {
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        partial += chunk;
        const parts = partial.split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.onLine(line);
      });
    }
    // 'close' (not 'exit'): resolves only after stdout/stderr drained, so every log line is in `lines`.
    this.exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  }

  private onLine(line: string): void {
    this.lines.push(line);
    this.watchers = this.watchers.filter((w) => {
      if (!w.re.test(line)) return true;
      w.resolve(line);
      return false;
    });
  }

  /** All output so far, one string. */
  output(): string {
    return this.lines.join('\n');
  }

  /** Resolves with the first line (already seen or future) matching `re`. */
  waitForLine(re: RegExp, timeoutMs = 60_000): Promise<string> {
    const seen = this.lines.find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.watchers = this.watchers.filter((w) => w.resolve !== done);
        reject(new Error(`no line matching ${re} within ${timeoutMs} ms; output:\n${this.output()}`));
      }, timeoutMs);
      const done = (line: string) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.watchers.push({ re, resolve: done });
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 5000): Promise<ExitStatus> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (this.running) this.child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `node bin/smg.js mock-engine <argv>`. */
export function spawnMockEngineArgv(argv: string[], env?: NodeJS.ProcessEnv): MockEngineProcess {
  const child = spawn(process.execPath, [SMG_BIN, 'mock-engine', ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  return new MockEngineProcess(child);
}

export function spawnMockEngine(o: SpawnMockOptions): MockEngineProcess {
  const argv = [...headlessServeArgv(o.model ?? 'mock-model', o.ranks ?? 1, o.port), ...(o.args ?? [])];
  return spawnMockEngineArgv(argv, o.env);
}

// Kept here for the tests that spawn mock engines; it lives with the launcher's port helpers.
export { freeTcpPort } from '../util/tcp-ports.js';
