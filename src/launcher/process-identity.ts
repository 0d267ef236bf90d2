/**
 * "Is that process still the one we started?" for the pid files `smg serve` leaves in its socket
 * directory. A pid alone is not enough: after a crash and a reboot, or a long time, the number can
 * belong to something else, and stopping *that* would be a disaster. On Linux a process is named by
 * pid plus its start time (field 22 of /proc/<pid>/stat, clock ticks since boot); elsewhere only
 * the pid is available and is trusted.
 */
import { readFileSync } from 'node:fs';

export interface ProcessRef {
  readonly pid: number;
  /** Start time from /proc, or null where /proc is not available. */
  readonly start: string | null;
}

interface ProcStat {
  readonly state: string;
  readonly pgrp: number;
  readonly start: string;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  return { state: fields[0], pgrp: Number(fields[2]), start: fields[19] };
}

const hasProc = (): boolean => process.platform === 'linux';

export function processRef(pid: number): ProcessRef {
  return { pid, start: hasProc() ? (readStat(pid)?.start ?? null) : null };
}

/** kill(pid, 0): true when a process (possibly a zombie) exists, EPERM included. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process `ref` names still runs (not a zombie, and not a newer process with the same pid). */
export function isRunning(ref: ProcessRef): boolean {
  if (!Number.isInteger(ref.pid) || ref.pid <= 0) return false;
  if (!hasProc()) return exists(ref.pid);
  const stat = readStat(ref.pid);
  if (stat === null || stat.state === 'Z') return false;
  return ref.start === null || stat.start === ref.start;
}

/** The engine `ref` still runs and still leads its own process group (safe to signal the group). */
export function isRunningGroupLeader(ref: ProcessRef): boolean {
  if (!isRunning(ref)) return false;
  if (!hasProc()) return true;
  return readStat(ref.pid)?.pgrp === ref.pid;
}

/** Any process, zombies included, left in process group `pgid`. */
export function groupExists(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  return exists(-pgid);
}
