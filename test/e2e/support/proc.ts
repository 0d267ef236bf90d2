/**
 * Processes and waiting for the e2e files: `smg` as a child process with its combined output, and
 * polling until a probe answers. Free ports come from src/mock-engine/spawn.ts (freeTcpPort).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const SMG_BIN = join(ROOT, 'bin', 'smg.js');
/** Small char-level tokenizer with a chat template: loads in milliseconds. */
export const TINY_MODEL = join(ROOT, 'test', 'fixtures', 'tiny-tokenizer');

export interface Proc {
  readonly child: ChildProcess;
  /** Combined stdout and stderr so far. */
  output(): string;
  /** Exit code, or 128+n when killed by signal n. */
  readonly exited: Promise<number>;
}

const SIGNO: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** `node bin/smg.js <args>` from the repo root. */
export function runSmg(args: readonly string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, [SMG_BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, sig) => resolve(code ?? 128 + (SIGNO[sig ?? ''] ?? 0))),
  );
  return { child, output: () => out, exited };
}

/** SIGKILL unless it already ended; resolves once it has. */
export async function killProc(p: Proc): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exited;
}

export interface WaitOptions {
  /** Appended to the timeout error, e.g. the output of the processes involved. */
  detail?: () => string;
  stepMs?: number;
}

/** Polls `probe` until it returns a value; a throw counts as "not yet" (the server is not up). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  { detail, stepMs = 20 }: WaitOptions = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Waits until a GET of `url` answers 2xx (gateway liveness or readiness). */
export async function waitForOk(what: string, url: string, timeoutMs?: number, opts?: WaitOptions): Promise<void> {
  await waitFor(what, async () => ((await fetch(url)).ok ? true : undefined), timeoutMs, opts);
}
