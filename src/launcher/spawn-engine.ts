/**
 * Real engine processes with execa (ecosystem §1.4 measured behaviour):
 * - `detached: true` makes the engine a session/group leader (pgid = pid), so Ctrl-C reaches only
 *   the launcher and `process.kill(-pid)` reaches the engine's own workers too;
 * - liveness comes from the 'exit' event: awaiting the execa promise waits until every holder of
 *   the output pipes (grandchildren included) is gone;
 * - `buffer: false`: a long-lived engine would otherwise have its output kept in memory.
 */
import { execa } from 'execa';
import type { ChildHandle, ExitInfo, KillGroupFn, SpawnFn } from './engine-process.js';

/** Per-line `[engine-N] ` prefix; stdout and stderr are transformed separately so lines never mix. */
function linePrefix(label: string) {
  return function* (line: unknown): Generator<string> {
    yield `[${label}] ${String(line)}`;
  };
}

export const spawnEngine: SpawnFn = (command, args, opts): ChildHandle => {
  const out = opts.prefixOutput ? [linePrefix(opts.label), 'inherit' as const] : ('inherit' as const);
  const err = opts.prefixOutput ? [linePrefix(opts.label), 'inherit' as const] : ('inherit' as const);
  const sub = execa(command, [...args], {
    detached: true,
    buffer: false,
    stdin: 'ignore',
    stdout: out,
    stderr: err,
    reject: false,
    // The env is already the full merged environment (gpu-slices), so do not merge process.env again.
    env: opts.env,
    extendEnv: false,
  });
  const exited = new Promise<ExitInfo>((resolve) => {
    sub.once('exit', (code, signal) => resolve({ code, signal }));
    // A missing executable emits 'error' and never 'exit'.
    sub.once('error', (e) => resolve({ code: null, signal: null, error: e.message }));
  });
  // The result promise settles late (pipes) and never rejects (reject: false); nothing to await.
  void sub.then(
    () => undefined,
    () => undefined,
  );
  return { pid: sub.pid, exited };
};

/** Signal a process group; a group that is already gone is not an error. */
export const killProcessGroup: KillGroupFn = (pgid, signal) => {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
};
