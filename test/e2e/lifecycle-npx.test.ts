/**
 * `npx smg …` runs smg as npm → `sh -c smg …` → node. A SIGTERM to the npx process makes npm pass
 * it to the shell, which dies without passing it on: smg used to run on as an orphan holding its
 * ports. Now smg notices its parent is gone and shuts down as on SIGTERM — the gateway drains and
 * exits, and under `smg serve` the engines are stopped too. Real `npx --no-install` from the
 * project directory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort, isPortAvailable } from '../../src/util/tcp-ports.js';
import { MOCK_PYTHON } from './support/serve-kit.js';
import { killProc, TINY_MODEL, waitFor, waitForOk, type Proc } from './support/proc.js';
import { descendants, privateDir, runCommand, serveFiles, waitGone } from './support/lifecycle-kit.js';
import { launchedPids } from './support/serve-kit.js';

const procs: Proc[] = [];
const orphans: number[] = [];
afterEach(async () => {
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const p of procs.splice(0)) await killProc(p);
});

async function npxSmg(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ npx: Proc; smgPid: number }> {
  const npx = runCommand('npx', ['--no-install', 'smg', ...args], env);
  procs.push(npx);
  const smg = await waitFor(
    'smg under npx',
    async () => (await descendants(npx.child.pid!)).find((p) => p.cmdline === 'smg::router'),
    60_000,
    { detail: () => npx.output(), stepMs: 100 },
  );
  orphans.push(smg.pid);
  return { npx, smgPid: smg.pid };
}

describe('SIGTERM to an npx wrapper (e2e)', () => {
  it('npx smg launch: the gateway drains and exits, and its ports are free again', async () => {
    const dir = await privateDir('smg-npx-');
    const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
    const { npx, smgPid } = await npxSmg([
      'launch', '--worker-urls', `ipc://${dir}/w0`, '--backend', 'vllm', '--model-path', TINY_MODEL,
      '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(metricsPort),
      '--drain-settle-secs', '0',
    ]);
    await waitForOk('gateway liveness', `http://127.0.0.1:${port}/liveness`, 60_000, { detail: () => npx.output() });

    const t0 = performance.now();
    npx.child.kill('SIGTERM');
    await waitGone('smg under npx', smgPid, 30_000, () => npx.output());
    console.log(`[measure] SIGTERM to npx → smg launch gone: ${(performance.now() - t0).toFixed(0)} ms`);
    const out = npx.output();
    expect(out).toMatch(/Parent process \(pid \d+\) exited; shutting down as on SIGTERM/);
    expect(out).toContain('Received SIGTERM, shutting down…');
    expect(out).toContain('Gateway stopped');
    expect(await isPortAvailable(port)).toBe(true);
    expect(await isPortAvailable(metricsPort)).toBe(true);
  });

  it('npx smg serve: the gateway drains, the engine is stopped, no file is left', async () => {
    const dir = await privateDir('smg-npx-serve-');
    const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
    const { npx, smgPid } = await npxSmg(
      [
        'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', TINY_MODEL,
        '--host', '127.0.0.1', '--port', String(port), '--worker-base-port', '49000',
        '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort), '--router-drain-settle-secs', '0',
      ],
      { SMG_ZMQ_SOCKET_DIR: dir },
    );
    await waitForOk('serve readiness', `http://127.0.0.1:${port}/readiness`, 120_000, { detail: () => npx.output() });
    const [engine] = launchedPids(npx.output());

    npx.child.kill('SIGTERM');
    await waitGone('smg serve under npx', smgPid, 60_000, () => npx.output());
    await waitGone('engine', engine.pid, 30_000, () => npx.output());
    const out = npx.output();
    expect(out).toMatch(/Parent process \(pid \d+\) exited; shutting down as on SIGTERM/);
    expect(out).toContain('Received signal 15, shutting down workers…');
    expect(out).toContain('Gateway stopped');
    expect(await serveFiles(dir)).toEqual([]);
    expect(await isPortAvailable(port)).toBe(true);
  });
});
