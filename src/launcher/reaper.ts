/**
 * One reaper per engine process group (bin/engine-reaper.js): a tiny Node process in its own
 * session that holds a pipe from this process and stops the group when the pipe closes. That is
 * the only way an engine is guaranteed not to outlive `smg serve` however serve dies — a SIGKILL
 * runs no handler, and the engines, in their own groups, are reparented to init and keep their
 * GPUs. The kernel closes the pipe whatever the cause; the reaper acts on that.
 *
 * The reaper exits by itself as soon as its group is gone, so it never outlives its engine.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REAPER_SCRIPT = fileURLToPath(new URL('../../bin/engine-reaper.js', import.meta.url));

export interface ReaperSpec {
  /** The engine's pid, which is its process-group id. */
  readonly pgid: number;
  readonly servePid: number;
  readonly label: string;
  readonly url: string;
  /** SIGTERM → SIGKILL grace when the reaper has to stop the group. */
  readonly graceMs: number;
  /** Socket files to remove after the group is gone, if nothing listens on them. */
  readonly sockets: readonly string[];
  /** The serve's pid file for this worker, removed if it still names `servePid`. */
  readonly claim: string | null;
}

export interface ReaperHandle {
  readonly pid: number | undefined;
}

export type StartReaperFn = (spec: ReaperSpec) => ReaperHandle;

export const startReaper: StartReaperFn = (spec) => {
  const child = spawn(process.execPath, [REAPER_SCRIPT, JSON.stringify(spec)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  // The pipe exists to be closed by the kernel when this process ends; it must not keep the
  // event loop alive, and a reaper that already left must not turn into an EPIPE here.
  child.stdin?.on('error', () => {});
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.on('error', () => {});
  child.unref();
  return { pid: child.pid };
};
