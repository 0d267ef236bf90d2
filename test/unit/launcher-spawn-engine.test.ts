// The real-process implementation of the process seam, against real processes (spec cli-and-api §2.11,
// §2.12; ecosystem §1.4): each engine leads its own process group, a group kill reaches its
// children, a missing executable is reported instead of hanging, ESRCH is tolerated, and the opt-in
// `[engine-N]` prefix is applied per line on stdout and stderr. No §3 behaviour maps here directly
// (SMG tests mock Popen); 138's "already-dead group" tolerance is checked on the real kill.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcessGroup, spawnEngine } from '../../src/launcher/spawn-engine.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smg-launcher-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function procState(pid: number): Promise<{ pgrp: number; state: string } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

async function waitFor(cond: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

const gone = async (pid: number) => {
  const s = await procState(pid);
  return s === undefined || s.state === 'Z';
};

describe.runIf(process.platform === 'linux')('spawnEngine (real processes)', () => {
  it('runs the engine as its own group leader and a group SIGTERM reaches its children', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const child = spawnEngine('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], {
      env: { PATH: process.env.PATH },
      label: 'engine-0',
      prefixOutput: false,
    });
    const pid = child.pid!;
    expect(pid).toBeGreaterThan(0);
    expect(await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '')).toBe(true);
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim());

    expect((await procState(pid))?.pgrp).toBe(pid);
    expect((await procState(grandchild))?.pgrp).toBe(pid);

    killProcessGroup(pid, 'SIGTERM');
    await expect(child.exited).resolves.toEqual({ code: null, signal: 'SIGTERM' });
    expect(await waitFor(() => gone(grandchild))).toBe(true);
  });

  it('reports a missing executable through `exited` instead of hanging', async () => {
    const child = spawnEngine('smg-no-such-python-xyz', [], { env: {}, label: 'engine-0', prefixOutput: false });
    expect(child.pid).toBeUndefined();
    const info = await child.exited;
    expect(info.code).toBeNull();
    expect(info.error).toMatch(/ENOENT/);
  });

  it('passes exactly the given environment (no second merge of process.env)', async () => {
    const out = join(dir, 'env.txt');
    const child = spawnEngine('/bin/sh', ['-c', `env > ${out}`], {
      env: { ONLY_THIS: '1', CUDA_VISIBLE_DEVICES: '2,3' },
      label: 'engine-0',
      prefixOutput: false,
    });
    await expect(child.exited).resolves.toEqual({ code: 0, signal: null });
    const env = await readFile(out, 'utf8');
    expect(env).toContain('ONLY_THIS=1');
    expect(env).toContain('CUDA_VISIBLE_DEVICES=2,3');
    expect(env).not.toContain('VITEST');
  });

  it('keeps the last stderr lines of an engine that exited (quoted when start-up fails)', async () => {
    const child = spawnEngine('sh', ['-c', "echo starting >&2; echo \"No module named 'vllm'\" >&2; exit 1"], {
      env: { PATH: process.env.PATH },
      label: 'engine-0',
      prefixOutput: false,
    });
    await expect(child.exited).resolves.toEqual({ code: 1, signal: null });
    expect(await child.stderrTail!()).toEqual(['starting', "No module named 'vllm'"]);
  });

  it('tolerates signalling a group that does not exist (above any pid_max)', () => {
    expect(() => killProcessGroup(2 ** 22 + 7, 'SIGTERM')).not.toThrow();
  });

  it('prefixes every stdout and stderr line with [engine-N] when opted in', async () => {
    const script = join(dir, 'prefix.mts');
    const modulePath = resolve('src/launcher/spawn-engine.ts');
    await writeFile(
      script,
      `import { spawnEngine } from ${JSON.stringify(modulePath)};
const c = spawnEngine('sh', ['-c', 'echo one; echo two >&2; echo three'], { env: { PATH: process.env.PATH }, label: 'engine-3', prefixOutput: true });
await c.exited;
`,
    );
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd() });
    expect(stdout.split('\n').filter(Boolean)).toEqual(['[engine-3] one', '[engine-3] three']);
    expect(stderr.split('\n').filter(Boolean)).toEqual(['[engine-3] two']);
  });
});
