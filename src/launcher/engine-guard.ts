/**
 * What keeps a serve's engines and files from outliving it, per engine process:
 * - its pid file (worker-claims.ts) is updated with the engine's pid before anything else runs,
 *   so even a serve killed the next instant leaves enough for the next serve to clean up;
 * - a reaper (reaper.ts) is started on its process group;
 * - on every exit path of this process the socket files of its workers and the pid files are
 *   removed synchronously (an 'exit' handler cannot wait; a forced exit never closed the gateway).
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { ipcPathOf } from '../engine/fnv-port.js';
import type { ChildHandle, LogFn } from './engine-process.js';
import type { EnginePlan } from './engine-plan.js';
import { processRef } from './process-identity.js';
import type { StartReaperFn } from './reaper.js';
import type { WorkerClaims } from './worker-claims.js';

export interface EngineGuardOptions {
  readonly plans: readonly EnginePlan[];
  /** This serve's pid files; absent when nothing was claimed (dry run, tests). */
  readonly claims?: WorkerClaims;
  /** Null runs no reapers (fake children in tests). */
  readonly startReaper: StartReaperFn | null;
  /** The reaper's SIGTERM → SIGKILL grace. */
  readonly graceMs: number;
  readonly log: LogFn;
}

export function socketFilesOf(url: string): string[] {
  const base = ipcPathOf(url);
  return [`${base}-in.sock`, `${base}-out.sock`];
}

export class EngineGuard {
  constructor(private readonly opts: EngineGuardOptions) {}

  /** The Supervisor's onSpawn hook. */
  readonly onSpawn = (plan: EnginePlan, child: ChildHandle): void => {
    const pid = child.pid;
    if (pid === undefined) return;
    const engine = processRef(pid);
    const claims = this.opts.claims;
    claims?.recordEngine(plan.workerPort, engine, null);
    if (this.opts.startReaper === null) return;
    const reaper = this.opts.startReaper({
      pgid: pid,
      servePid: process.pid,
      label: plan.label,
      url: plan.url,
      graceMs: this.opts.graceMs,
      sockets: socketFilesOf(plan.url),
      claim: claims?.pathOf(plan.workerPort) ?? null,
    });
    if (reaper.pid === undefined) {
      this.opts.log('warn', `${plan.label} (pid ${pid}): could not start its reaper; if smg serve is killed, the next smg serve stops this engine`);
      return;
    }
    claims?.recordEngine(plan.workerPort, engine, processRef(reaper.pid));
  };

  /** Socket files and pid files of this serve; idempotent, synchronous. */
  cleanupSync(): void {
    for (const plan of this.opts.plans) {
      for (const path of socketFilesOf(plan.url)) {
        try {
          if (lstatSync(path).isSocket()) unlinkSync(path);
        } catch {
          // gone already
        }
      }
    }
    this.opts.claims?.releaseAll();
  }
}
