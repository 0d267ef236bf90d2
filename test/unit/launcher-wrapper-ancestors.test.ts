import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processRef } from '../../src/launcher/process-identity.js';
import { installSignalHandlers, PARENT_POLL_MS } from '../../src/launcher/signals.js';
import { isPackageManager, wrapperAncestors } from '../../src/launcher/wrapper-ancestors.js';

function childrenOfPid(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const t = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(t.slice(t.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('wrapper ancestors (npx → sh -c → smg)', () => {
  it('recognises package managers by argv, npm’s retitled `npm exec …` included', () => {
    expect(isPackageManager(['npm exec smg launch --worker-urls ipc:///tmp/a/w0'], undefined)).toBe(true);
    expect(isPackageManager(['/usr/bin/node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'smg'], undefined)).toBe(true);
    expect(isPackageManager(['node', '/opt/x/custom.js'], '/opt/x/custom.js')).toBe(true);
    expect(isPackageManager(['/bin/sh', '-c', 'smg serve'], undefined)).toBe(false);
    expect(isPackageManager(['bash'], undefined)).toBe(false);
  });

  it('walks /proc from a process up to the package manager; [] without one', async () => {
    // A: a process titled like npm (`exec -a`), B: the `sh -c` it runs, C: B's child.
    let b: number | undefined;
    const a = spawn('bash', ['-c', 'exec -a "npm exec fake" bash -c "sh -c \\"sleep 30; :\\"; :"'], { stdio: 'ignore' });
    try {
      const childrenOf = childrenOfPid;
      const end = Date.now() + 5000;
      while (b === undefined && Date.now() < end) {
        b = childrenOf(a.pid!)[0];
        if (b === undefined) await new Promise((r) => setTimeout(r, 20));
      }
      expect(b).toBeDefined();
      const chain = wrapperAncestors({}, b!);
      expect(chain.map((r) => r.pid)).toEqual([b, a.pid]);
      expect(wrapperAncestors({}, 1)).toEqual([]);
    } finally {
      // B and its sleep first: they would outlive A by 30 s.
      for (const pid of b === undefined ? [] : [...childrenOfPid(b), b]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      a.kill('SIGKILL');
    }
  });

  it('an ancestor that is gone shuts down as on SIGTERM', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const ref = processRef(child.pid!);
    const seen: string[] = [];
    const controller = { shuttingDown: false, onSignal: async (s: NodeJS.Signals) => void seen.push(s) };
    const uninstall = installSignalHandlers({
      controller,
      proc: new EventEmitter() as unknown as NodeJS.Process,
      exitWithParent: true,
      ppid: () => 100,
      ancestors: [ref],
      log: (l, m) => seen.push(`${l}:${m}`),
    });
    try {
      await new Promise((r) => setTimeout(r, PARENT_POLL_MS * 2));
      expect(seen).toEqual([]);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const end = Date.now() + 5000;
      while (seen.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([
        `warn:Ancestor process (pid ${child.pid}, the package manager that started smg or a wrapper under it) exited; shutting down as on SIGTERM`,
        'SIGTERM',
      ]);
    } finally {
      uninstall();
    }
  });
});
