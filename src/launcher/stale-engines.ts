/**
 * The next `smg serve` cleans up after one that died without doing so: SIGKILL of serve and its
 * reaper together (`kill -9 -<pgid>` of a shell job, an OOM kill of the cgroup), a machine that
 * lost power mid-run leaves pid files only. Every `engine-<port>.pid` in the socket directory
 * whose serve no longer runs is settled: its engine's process group is stopped (only if that pid
 * is still the same process and still leads its group), its socket files are removed (only if
 * nothing listens on them), and the pid file goes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ipcPathOf } from '../engine/fnv-port.js';
import { IpcPathError, removeStaleSocket } from '../engine/ipc-path.js';
import type { LogFn } from './engine-process.js';
import { isRunning, isRunningGroupLeader } from './process-identity.js';
import { stopProcessGroup } from './stop-group.js';
import { CLAIM_FILE_RE, readClaim, removeClaimOf } from './worker-claims.js';

export interface SweepOptions {
  readonly log: LogFn;
  /** SIGTERM → SIGKILL grace for a leftover engine group. */
  readonly graceMs: number;
}

export interface SweepResult {
  /** Engine pids that were still running and got stopped. */
  readonly stoppedEngines: number[];
  /** Pid files removed. */
  readonly removedClaims: number;
}

export async function sweepStaleClaims(socketDir: string, opts: SweepOptions): Promise<SweepResult> {
  let names: string[];
  try {
    names = readdirSync(socketDir);
  } catch {
    return { stoppedEngines: [], removedClaims: 0 };
  }
  const stoppedEngines: number[] = [];
  let removedClaims = 0;
  for (const name of names) {
    if (!CLAIM_FILE_RE.test(name)) continue;
    const path = join(socketDir, name);
    const claim = readClaim(path);
    if (claim === null || isRunning(claim.serve)) continue;

    const engine = claim.engine;
    if (engine !== null && isRunningGroupLeader(engine)) {
      opts.log(
        'warn',
        `${claim.label} (pid ${engine.pid}, ${claim.url}) was left running by smg serve (pid ${claim.serve.pid}), which is gone; stopping its process group`,
      );
      const how = await stopProcessGroup(engine.pid, opts.graceMs);
      if (how === 'stuck') opts.log('warn', `process group ${engine.pid} survived SIGKILL; its sockets are left in place`);
      else stoppedEngines.push(engine.pid);
      if (how === 'stuck') continue;
    }
    const base = ipcPathOf(claim.url);
    for (const sock of [`${base}-in.sock`, `${base}-out.sock`]) {
      try {
        await removeStaleSocket(sock);
      } catch (err) {
        if (!(err instanceof IpcPathError)) throw err;
        opts.log('warn', `Leaving ${sock} of the gone smg serve (pid ${claim.serve.pid}) in place: ${err.message}`);
      }
    }
    removeClaimOf(path, claim.serve);
    removedClaims += 1;
    opts.log('info', `Removed ${name}, left by smg serve (pid ${claim.serve.pid}), which is gone`);
  }
  return { stoppedEngines, removedClaims };
}
