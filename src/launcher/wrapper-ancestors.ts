/**
 * The processes between smg and the package manager that started it. `npx smg …` runs
 * npm → `sh -c smg …` → node: when npm is SIGKILLed (a supervisor's `kill -9`) nothing tells the
 * shell, which waits on smg forever, so smg's own parent never changes and watching only the
 * parent leaves smg, its engines and its ports running. Watching every process up to and including
 * the package manager catches that: when any of them is gone, smg shuts down as on SIGTERM, and the
 * shell exits once smg has.
 *
 * The package manager is recognised by its command line: `node …/npm-cli.js` / `npx-cli.js`, npm,
 * npx, yarn, pnpm, or the script `npm_execpath` names. At most MAX_DEPTH levels are walked, and
 * only on Linux (the chain is read from /proc); elsewhere the parent watch alone applies.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type ProcessRef, processRef } from './process-identity.js';

const MAX_DEPTH = 6;
const PACKAGE_MANAGERS = /^(npm|npx|yarn|pnpm|pnpx|bun|bunx)(-cli)?(\.c?js)?$/;

function parentPid(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4 (ppid) comes after the command name, which may hold spaces and ')'.
    const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function argv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    return [];
  }
}

/**
 * Whether `args` (a process's argv) is a package manager running a script. npm sets its process
 * title, so its argv[0] reads `npm exec smg …` as one string: the first word counts too.
 */
export function isPackageManager(args: readonly string[], npmExecpath: string | undefined): boolean {
  return args
    .slice(0, 3)
    .some((a) => (npmExecpath !== undefined && a === npmExecpath) || PACKAGE_MANAGERS.test(basename(a)) || PACKAGE_MANAGERS.test(basename(a.split(' ')[0])));
}

/**
 * From smg's parent up to the package manager, inclusive; [] when no package manager is found
 * within MAX_DEPTH levels (smg was not started by one, or /proc is not there).
 */
export function wrapperAncestors(env: Readonly<Record<string, string | undefined>>, startPid = process.ppid): ProcessRef[] {
  if (process.platform !== 'linux') return [];
  const chain: ProcessRef[] = [];
  let pid: number | null = startPid;
  for (let depth = 0; depth < MAX_DEPTH && pid !== null && pid > 1; depth++) {
    chain.push(processRef(pid));
    if (isPackageManager(argv(pid), env.npm_execpath)) return chain;
    pid = parentPid(pid);
  }
  return [];
}
