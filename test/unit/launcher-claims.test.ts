// Worker-port pid files (src/launcher/worker-claims.ts) and the checks that keep two live serves
// off one worker port (src/launcher/worker-port-check.ts), on a real temp directory.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processRef } from '../../src/launcher/process-identity.js';
import { claimFilePath, createClaim, readClaim, removeClaimOf, WorkerClaims, type WorkerClaim } from '../../src/launcher/worker-claims.js';
import { workerPortCheck } from '../../src/launcher/worker-port-check.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smg-claims-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pid that certainly ran and is certainly gone: a child that already exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

function claimOf(servePid: number, port = 31000): WorkerClaim {
  return {
    serve: { pid: servePid, start: null },
    label: 'engine-0',
    url: `ipc://${dir}/engine-${port}`,
    workerPort: port,
    handshakePort: 24640,
    engine: null,
    reaper: null,
  };
}

describe('claim files', () => {
  it('are created only when absent, with complete content, and leave no temp file behind', async () => {
    const path = claimFilePath(dir, 31000);
    expect(path).toBe(join(dir, 'engine-31000.pid'));
    expect(createClaim(path, claimOf(1))).toBe(true);
    expect(createClaim(path, claimOf(2))).toBe(false);
    expect(readClaim(path)?.serve.pid).toBe(1);
    expect((await import('node:fs')).readdirSync(dir)).toEqual(['engine-31000.pid']);
  });

  it('are removed only by the serve they name', () => {
    const path = claimFilePath(dir, 31000);
    createClaim(path, claimOf(1));
    removeClaimOf(path, { pid: 2, start: null });
    expect(readClaim(path)).not.toBeNull();
    removeClaimOf(path, { pid: 1, start: null });
    expect(readClaim(path)).toBeNull();
  });

  it('reads anything else as no claim', async () => {
    const path = claimFilePath(dir, 31000);
    await writeFile(path, 'not json');
    expect(readClaim(path)).toBeNull();
    await writeFile(path, JSON.stringify({ serve: { pid: 'x' } }));
    expect(readClaim(path)).toBeNull();
    expect(readClaim(join(dir, 'missing.pid'))).toBeNull();
  });

  it('WorkerClaims records the engine and its reaper, and releases only its own files', async () => {
    const claims = new WorkerClaims(dir);
    expect(claims.claim(31000, `ipc://${dir}/engine-31000`, 24640, 'engine-0')).toBe(true);
    expect(claims.claim(31000, `ipc://${dir}/engine-31000`, 24640, 'engine-0')).toBe(false);
    claims.recordEngine(31000, { pid: 4242, start: '77' }, { pid: 4243, start: null });
    const onDisk = JSON.parse(await readFile(claimFilePath(dir, 31000), 'utf8')) as WorkerClaim;
    expect(onDisk).toMatchObject({ serve: { pid: process.pid }, engine: { pid: 4242, start: '77' }, reaper: { pid: 4243 }, label: 'engine-0' });
    // Someone else's claim on another port survives the release.
    createClaim(claimFilePath(dir, 31005), claimOf(1, 31005));
    claims.releaseAll();
    expect(readClaim(claimFilePath(dir, 31000))).toBeNull();
    expect(readClaim(claimFilePath(dir, 31005))).not.toBeNull();
  });
});

describe('workerPortCheck', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  it('claims a free port for replica `index`', async () => {
    const claims = new WorkerClaims(dir);
    const check = workerPortCheck({ socketDir: dir, claims, probeTcp: async () => true });
    expect(await check(31000, 1)).toBe(true);
    expect(readClaim(claimFilePath(dir, 31000))).toMatchObject({ label: 'engine-1', serve: { pid: process.pid } });
    claims.releaseAll();
  });

  it('refuses a port a live serve claims, and one whose claim another serve just won', async () => {
    // This test process stands in for the other live serve.
    createClaim(claimFilePath(dir, 31000), { ...claimOf(process.pid), serve: processRef(process.pid) });
    const check = workerPortCheck({ socketDir: dir, claims: new WorkerClaims(dir), probeTcp: async () => true });
    expect(await check(31000, 0)).toBe(false);
    // A dead serve's claim is no obstacle for a dry run (the real start sweeps it first) …
    createClaim(claimFilePath(dir, 31001), claimOf(await deadPid(), 31001));
    expect(await workerPortCheck({ socketDir: dir, probeTcp: async () => true })(31001, 0)).toBe(true);
    // … but the file is still there, so a real claim loses cleanly instead of overwriting it.
    expect(await check(31001, 0)).toBe(false);
  });

  it('refuses a port whose handshake port is taken', async () => {
    const probed: number[] = [];
    const check = workerPortCheck({
      socketDir: dir,
      probeTcp: async (p) => {
        probed.push(p);
        return false;
      },
    });
    expect(await check(31000, 0)).toBe(false);
    expect(probed).toHaveLength(1);
    expect(probed[0]).toBeGreaterThanOrEqual(20000);
    expect(probed[0]).toBeLessThan(30000);
  });

  it('for TokenSpeed also refuses a port whose store port (--dist-init-addr) is taken', async () => {
    const probed: number[] = [];
    const probeTcp = async (p: number) => {
      probed.push(p);
      return p !== 31233;
    };
    expect(await workerPortCheck({ socketDir: dir, probeTcp, backend: 'tokenspeed' })(31000, 0)).toBe(false);
    expect(probed.at(-1)).toBe(31233);
    expect(await workerPortCheck({ socketDir: dir, probeTcp, backend: 'vllm' })(31000, 0)).toBe(true);
  });

  it('refuses a port whose ipc socket something listens on (a gateway started with smg launch)', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(join(dir, 'engine-31000-in.sock'), r));
    servers.push(server);
    const claims = new WorkerClaims(dir);
    const check = workerPortCheck({ socketDir: dir, claims, probeTcp: async () => true });
    expect(await check(31000, 0)).toBe(false);
    expect(claims.ports()).toEqual([]);
  });
});
