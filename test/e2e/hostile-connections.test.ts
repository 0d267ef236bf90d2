/**
 * Descriptors: `smg launch` under an open-files limit of 400 (hard; soft 200, set with `ulimit` in
 * the shell that execs it) with more idle connections offered than it may hold, while its engine is killed
 * and restarted. The gateway holds at most --max-connections (derived: 400 minus a reserve of 80
 * minus 2 × 16 for the metrics and probe listeners), closes the oldest idle connection to admit a
 * new one, keeps serving, and the restarted engine rejoins because HTTP never takes the
 * descriptors the engine side needs. Before: no cap, every new connection was reset at the limit
 * and the engine's restart made libzmq abort the process. A silent client is closed after 5 s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { type MockEngineProcess, freeTcpPort, spawnMockEngine } from '../../src/mock-engine/spawn.js';
import { type Proc, ROOT, SMG_BIN, TINY_MODEL, killProc, waitFor, waitForOk } from './support/proc.js';

const LIMIT = 400;
const EXPECTED_CAP = LIMIT - 80 - 32;

/**
 * `smg <args>` with the open-files hard limit set to `limit` and the soft one to half of it by the
 * shell that execs it: the gateway runs with the hard limit (Node raises the soft one at start).
 */
function smgUnderLimit(limit: number, args: string[]): Proc {
  const child = spawn('sh', ['-c', `ulimit -Sn ${limit / 2} && ulimit -Hn ${limit} && exec "$0" "$@"`, process.execPath, SMG_BIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code, sig) => resolve(code ?? (sig === 'SIGKILL' ? 137 : 128))));
  return { child, output: () => out, exited };
}

describe('connections and descriptors under a low open-files limit (e2e)', () => {
  let dir: string;
  let gw: Proc;
  let engine: MockEngineProcess;
  let port: number;
  let url: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-fd-'));
    url = `ipc://${dir}/e0`;
    [port] = [await freeTcpPort()];
    const mport = await freeTcpPort();
    gw = smgUnderLimit(LIMIT, [
      'launch', '--worker-urls', url, '--backend', 'vllm', '--model-path', TINY_MODEL, '--host', '127.0.0.1', '--port', String(port),
      '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport), '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '1',
    ]);
    engine = spawnMockEngine({ port: handshakePortFor(url), model: TINY_MODEL });
    await waitForOk('gateway readiness', `http://127.0.0.1:${port}/readiness`, 60_000, { detail: () => gw.output() });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([killProc(gw), engine?.stop(2000)]);
    await rm(dir, { recursive: true, force: true });
  });

  const fds = async () => (await readdir(`/proc/${gw.child.pid}/fd`)).length;
  const chat = async () => {
    const r = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }),
    });
    return { status: r.status, body: await r.text() };
  };

  /** A keep-alive connection that made one request and now sits idle; resolves once answered. */
  function idleConnection(): Promise<Socket> {
    return new Promise((resolve) => {
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      s.on('error', () => {});
      s.once('connect', () => s.write('GET /liveness HTTP/1.1\r\nHost: x\r\n\r\n'));
      s.once('data', () => resolve(s));
      s.once('close', () => resolve(s));
    });
  }

  it('holds at most the cap, evicts idle connections for new ones, serves on, and a restarted engine rejoins', async () => {
    expect(gw.output()).toContain(`HTTP connections capped at ${EXPECTED_CAP} (open-files limit ${LIMIT}`);
    const baseFds = await fds();

    // 1.5 × the cap of idle keep-alive connections, in waves.
    for (let i = 0; i < Math.ceil((EXPECTED_CAP * 1.5) / 50); i++) await Promise.all(Array.from({ length: 50 }, idleConnection));
    const stillOpen = () => sockets.filter((s) => !s.destroyed && !s.closed).length;
    // The evicted connections' closes reach the client a moment later.
    await waitFor('oldest idle connections closed', () => (stillOpen() <= EXPECTED_CAP ? true : undefined), 20_000, { detail: () => `${stillOpen()} open` });
    const open = stillOpen();
    const heldFds = await fds();
    console.log(`descriptor test: cap ${EXPECTED_CAP}, offered ${sockets.length}, still open ${open}, gateway fds ${baseFds} → ${heldFds} (limit ${LIMIT})`);
    expect(open).toBeLessThanOrEqual(EXPECTED_CAP);
    expect(heldFds).toBeLessThan(LIMIT - 40);

    // Serving while full: each new connection evicts an idle one.
    expect((await chat()).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    // The engine dies and comes back while the HTTP side is full.
    await Promise.all(Array.from({ length: 40 }, idleConnection));
    engine.child.kill('SIGKILL');
    await engine.exited;
    await waitFor('worker not ready', async () => ((await fetch(`http://127.0.0.1:${port}/readiness`)).status !== 200 ? true : undefined), 30_000);
    engine = spawnMockEngine({ port: handshakePortFor(url), model: TINY_MODEL });
    await waitForOk('worker ready again', `http://127.0.0.1:${port}/readiness`, 60_000, { detail: () => gw.output() });
    const r = await chat();
    expect(r.status, r.body).toBe(200);
    expect(gw.child.exitCode).toBeNull();
    expect(gw.output()).not.toMatch(/Too many open files|EMFILE/);
  });

  it('a client that sends nothing is closed after about 5 s', async () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    await new Promise((r) => s.once('connect', r));
    const t0 = performance.now();
    await new Promise((r) => s.once('close', r));
    const ms = performance.now() - t0;
    console.log(`silent client closed after ${ms.toFixed(0)} ms`);
    expect(ms).toBeGreaterThan(4000);
    expect(ms).toBeLessThan(8000);
  });
});
