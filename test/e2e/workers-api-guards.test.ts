/**
 * The workers API of a real `smg launch` on 0.0.0.0 without --api-key (its defaults): specs that
 * can never work are 400 before any job is queued, worker paths are taken as given (absolute,
 * normal) and nothing outside what a worker created is touched: its directories go when it is
 * deleted, another user's socket file is never unlinked, and the exposure is warned about at start.
 */
import { chown, lstat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { type Proc, killProc, runSmg, TINY_MODEL, waitFor, waitForOk } from './support/proc.js';

describe('workers API guards (e2e)', () => {
  let gw: Proc;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-wg-'));
    const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
    gw = runSmg(['launch', '--model-path', TINY_MODEL, '--host', '0.0.0.0', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport)]);
    base = `http://127.0.0.1:${port}`;
    await waitForOk('gateway liveness', `${base}/liveness`, 60_000, { detail: () => gw.output() });
  });
  afterAll(async () => {
    await killProc(gw);
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (body: unknown) => {
    const r = await fetch(`${base}/workers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as { worker_id?: string; error?: { code: string; param: string; message: string } } };
  };

  it('warns at start that the port is open without --api-key', () => {
    expect(gw.output()).toMatch(/WARN\s+SECURITY: listening on 0\.0\.0\.0 without --api-key: anyone who can reach this port/);
  });

  it('refuses what can never work with a 400 before any job, and touches no file', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'ipc://rel/path', runtime_type: 'vllm' }, 'url'],
      [{ url: `ipc://${dir}/x/../../escape/e0`, runtime_type: 'vllm' }, 'url'],
      [{ url: `ipc://${dir}/${'p'.repeat(120)}`, runtime_type: 'vllm' }, 'url'],
      [{ url: `ipc://${dir}/${'u'.repeat(100_000)}` }, 'url'],
      [{ url: `ipc://${dir}/sg/e0`, runtime_type: 'sglang' }, 'runtime_type'],
      [{ url: `ipc://${dir}/dp/e0`, runtime_type: 'vllm', dp_size: 1_000_000_000 }, 'dp_size'],
      [{ url: `ipc://${dir}/udp/e0`, runtime_type: 'vllm', zmq_handshake_address: 'udp://127.0.0.1:5555' }, 'zmq_handshake_address'],
    ];
    for (const [body, param] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(r.body.error?.param).toBe(param);
      expect(r.body.error?.message.length).toBeLessThan(1000);
    }
    const list = (await (await fetch(`${base}/workers`)).json()) as { total: number };
    expect(list.total).toBe(0);
    for (const d of ['rel', 'escape', 'sg', 'dp', 'udp']) await expect(lstat(join(dir, d))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(join(process.cwd(), 'rel'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a worker’s a/b/c socket directories are removed when it is deleted', async () => {
    const url = `ipc://${dir}/a/b/c/e0`;
    const r = await post({ url, runtime_type: 'vllm', zmq_handshake_address: `tcp://127.0.0.1:${await freeTcpPort()}` });
    expect(r.status).toBe(202);
    // Bound (waiting for its engine): the directories exist.
    await waitFor('socket dir', async () => ((await lstat(join(dir, 'a', 'b', 'c'))).isDirectory() ? true : undefined), 30_000);
    const del = await fetch(`${base}/workers/${r.body.worker_id}`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    await waitFor('directories removed', async () => {
      try {
        await lstat(join(dir, 'a'));
        return undefined;
      } catch {
        return true;
      }
    }, 30_000, { detail: () => gw.output() });
    expect((await lstat(dir)).isDirectory()).toBe(true);
  });

  it.runIf(process.geteuid?.() === 0)('another user’s dead socket at the worker path is left alone; the job fails saying why', async () => {
    const sockDir = join(dir, 'theirs');
    await mkdir(sockDir, { mode: 0o700 });
    const path = join(sockDir, 'e0-in.sock');
    const s = new zmq.Pull({ linger: 0 });
    await s.bind(`ipc://${path}`);
    s.close();
    await chown(path, 65534, 65534);
    const r = await post({ url: `ipc://${sockDir}/e0`, runtime_type: 'vllm', zmq_handshake_address: `tcp://127.0.0.1:${await freeTcpPort()}` });
    expect(r.status).toBe(202);
    await waitFor('job failure logged', () => (gw.output().includes(`belongs to uid 65534, not to this gateway`) ? true : undefined), 30_000, {
      detail: () => gw.output(),
    });
    const st = await lstat(path);
    expect(st.isSocket()).toBe(true);
    expect(st.uid).toBe(65534);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
