/**
 * The real-process implementation of the engine seam (spec cli-and-api §2.11, §2.12; ecosystem §1.4):
 * - `detached: true` makes each engine the leader of its own process group, so Ctrl-C reaches only
 *   the launcher and `process.kill(-pid)` reaches the engine's own workers too;
 * - liveness comes from the 'exit' event, not from the pipes closing (grandchildren may hold them);
 * - stdout is inherited; stderr passes through the launcher, unchanged, so its last lines can be
 *   quoted when an engine fails before its handshake (`No module named 'vllm'`);
 * - the opt-in `[engine-N] ` prefix is applied per line on both streams.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ChildHandle, ExitInfo, KillGroupFn, SpawnFn } from './engine-process.js';
import { OutputTail } from './output-tail.js';

/** How long a failure report waits for the rest of an exited engine's stderr to arrive. */
const STDERR_DRAIN_MS = 1000;

/** Copies `from` to `to`, each line prefixed; a last line without newline is flushed at the end. */
function pipeWithPrefix(from: Readable, to: NodeJS.WritableStream, prefix: string, tap?: (chunk: string) => void): void {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    tap?.(chunk);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) to.write(lines.map((l) => `${prefix}${l}\n`).join(''));
  });
  from.on('end', () => {
    if (partial !== '') to.write(`${prefix}${partial}\n`);
    partial = '';
  });
}

function pipeRaw(from: Readable, to: NodeJS.WritableStream, tap: (chunk: string) => void): void {
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    tap(chunk);
    to.write(chunk);
  });
}

export const spawnEngine: SpawnFn = (command, args, opts): ChildHandle => {
  const tail = new OutputTail();
  let sub: ChildProcess;
  try {
    sub = spawn(command, [...args], {
      detached: true,
      stdio: ['ignore', opts.prefixOutput ? 'pipe' : 'inherit', 'pipe'],
      // The env is already the full merged environment (gpu-slices); nothing is merged again.
      env: opts.env,
    });
  } catch (err) {
    const exited = Promise.resolve<ExitInfo>({ code: null, signal: null, error: (err as Error).message });
    return { pid: undefined, exited, stderrTail: async () => [] };
  }
  const prefix = `[${opts.label}] `;
  const tap = (chunk: string): void => tail.push(chunk);
  if (sub.stdout) pipeWithPrefix(sub.stdout, process.stdout, prefix);
  const stderr = sub.stderr!;
  if (opts.prefixOutput) pipeWithPrefix(stderr, process.stderr, prefix, tap);
  else pipeRaw(stderr, process.stderr, tap);
  const stderrClosed = new Promise<void>((resolve) => stderr.once('close', () => resolve()));

  const exited = new Promise<ExitInfo>((resolve) => {
    sub.once('exit', (code, signal) => resolve({ code, signal }));
    // A missing executable emits 'error' and never 'exit'.
    sub.once('error', (e) => resolve({ code: null, signal: null, error: e.message }));
  });
  return {
    pid: sub.pid,
    exited,
    async stderrTail() {
      await Promise.race([stderrClosed, new Promise((r) => setTimeout(r, STDERR_DRAIN_MS).unref())]);
      return tail.lines();
    },
  };
};

/** Signal a process group; a group that is already gone is not an error. */
export const killProcessGroup: KillGroupFn = (pgid, signal) => {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
};
