// The engine reaper (bin/engine-reaper.js via src/launcher/reaper.ts) and the stale-claim sweep
// (src/launcher/stale-engines.ts), with real processes: a stand-in "gateway" process starts a
// reaper on a detached `sleep` group and is then SIGKILLed, as `smg serve` could be.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupExists, isRunning, processRef } from '../../src/launcher/process-identity.js';
import { sweepStaleClaims } from '../../src/launcher/stale-engines.js';
import { claimFilePath, createClaim, readClaim } from '../../src/launcher/worker-claims.js';

let dir: string;
const children: ChildProcess[] = [];
const groups: number[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smg-reaper-'));
});
afterEach(async () => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** A unix socket file nobody listens on: its owner was SIGKILLed before it could close it. */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  await new Promise((r) => child.on('exit', r));
  expect(existsSync(path)).toBe(true);
}

/** A detached `sleep` leading its own process group: the engine. */
function engineGroup(): number {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  child.unref();
  groups.push(child.pid!);
  return child.pid!;
}

/** A stand-in gateway that starts a reaper for `pgid` and reports the reaper's pid. */
async function gatewayWithReaper(pgid: number, sockets: string[], claim: string): Promise<{ gateway: ChildProcess; reaper: number }> {
  const script = join(dir, 'gateway.mts');
  const reaperModule = resolve('src/launcher/reaper.ts');
  await writeFile(
    script,
    `import { startReaper } from ${JSON.stringify(reaperModule)};
const r = startReaper({ pgid: ${pgid}, servePid: process.pid, label: 'engine-0', url: 'ipc://x', graceMs: 2000,
  sockets: ${JSON.stringify(sockets)}, claim: ${JSON.stringify(claim)} });
process.stdout.write(JSON.stringify({ reaper: r.pid }) + '\\n');
setInterval(() => {}, 1000);
`,
  );
  const gateway = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(gateway);
  const line = await new Promise<string>((res) => gateway.stdout!.once('data', (d: Buffer) => res(d.toString())));
  return { gateway, reaper: (JSON.parse(line) as { reaper: number }).reaper };
}

function writeClaim(path: string, servePid: number, engine: number | null): void {
  createClaim(path, {
    serve: processRef(servePid),
    label: 'engine-0',
    url: `ipc://${dir}/engine-31000`,
    workerPort: 31000,
    handshakePort: 24640,
    engine: engine === null ? null : processRef(engine),
    reaper: null,
  });
}

describe.runIf(process.platform === 'linux')('engine reaper (real processes)', () => {
  it('stops the group when the gateway is SIGKILLed, removes stale sockets and the claim, and exits', async () => {
    const pgid = engineGroup();
    const sock = join(dir, 'engine-31000-in.sock');
    await staleSocket(sock);
    const claim = claimFilePath(dir, 31000);
    const { gateway, reaper } = await gatewayWithReaper(pgid, [sock], claim);
    writeClaim(claim, gateway.pid!, pgid);
    expect(isRunning(processRef(reaper))).toBe(true);

    gateway.kill('SIGKILL');
    expect(await until(() => !groupExists(pgid))).toBe(true);
    expect(await until(() => !isRunning({ pid: reaper, start: null }))).toBe(true);
    expect(existsSync(sock)).toBe(false);
    expect(existsSync(claim)).toBe(false);
  });

  it('exits by itself once its group is gone, touching nothing the live gateway owns', async () => {
    const pgid = engineGroup();
    const claim = claimFilePath(dir, 31000);
    const { gateway, reaper } = await gatewayWithReaper(pgid, [], claim);
    writeClaim(claim, gateway.pid!, pgid);
    process.kill(-pgid, 'SIGKILL');
    expect(await until(() => !isRunning({ pid: reaper, start: null }))).toBe(true);
    expect(readClaim(claim)?.serve.pid).toBe(gateway.pid);
    expect(gateway.exitCode).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('sweepStaleClaims (real processes)', () => {
  it('stops the engine a gone serve left, removes its stale sockets and pid file; a live serve\'s claim stays', async () => {
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const pgid = engineGroup();
    const stale = claimFilePath(dir, 31000);
    writeClaim(stale, gone.pid!, pgid);
    await staleSocket(join(dir, 'engine-31000-in.sock'));
    const live = claimFilePath(dir, 31005);
    createClaim(live, { ...readClaim(stale)!, serve: processRef(process.pid), workerPort: 31005, url: `ipc://${dir}/engine-31005` });

    const lines: string[] = [];
    const result = await sweepStaleClaims(dir, { log: (level, m) => lines.push(`${level}: ${m}`), graceMs: 2000 });
    expect(result).toEqual({ stoppedEngines: [pgid], removedClaims: 1 });
    expect(groupExists(pgid)).toBe(false);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(dir, 'engine-31000-in.sock'))).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(lines).toEqual([
      `warn: engine-0 (pid ${pgid}, ipc://${dir}/engine-31000) was left running by smg serve (pid ${gone.pid}), which is gone; stopping its process group`,
      `info: Removed engine-31000.pid, left by smg serve (pid ${gone.pid}), which is gone`,
    ]);
  });

  it('never signals a pid that is now another process (start time differs)', async () => {
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const pgid = engineGroup();
    const path = claimFilePath(dir, 31000);
    writeClaim(path, gone.pid!, null);
    const claim = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    // The recorded engine "started" at another time: a reused pid.
    await writeFile(path, JSON.stringify({ ...claim, engine: { pid: pgid, start: '1' } }));
    const result = await sweepStaleClaims(dir, { log: () => {}, graceMs: 2000 });
    expect(result).toEqual({ stoppedEngines: [], removedClaims: 1 });
    expect(groupExists(pgid)).toBe(true);
  });
});
