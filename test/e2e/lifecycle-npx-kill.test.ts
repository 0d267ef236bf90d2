/**
 * `npx smg serve …` whose npm process is SIGKILLed (a supervisor's `kill -9`): nothing tells the
 * `sh -c smg …` under it, which waits on smg, so smg's own parent never changes. smg watches every
 * process up to the package manager (launcher/wrapper-ancestors.ts) and shuts down as on SIGTERM:
 * the engine is stopped, the shell exits, the port is free. Before: `sh -c smg`, the gateway and
 * the engine ran on and the port kept answering. Real `npx --no-install` from the project directory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort, isPortAvailable } from '../../src/util/tcp-ports.js';
import { MOCK_PYTHON, launchedPids } from './support/serve-kit.js';
import { killProc, TINY_MODEL, waitFor, waitForOk, type Proc } from './support/proc.js';
import { descendants, privateDir, runCommand, serveFiles, waitGone } from './support/lifecycle-kit.js';

const procs: Proc[] = [];
const strays: number[] = [];
afterEach(async () => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const p of procs.splice(0)) await killProc(p);
});

describe('kill -9 of the npx process (e2e)', () => {
  it('npx smg serve: smg, its engine and the sh -c under npm all exit; nothing is left', async () => {
    const dir = await privateDir('smg-npx-kill-');
    const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
    const npx = runCommand(
      'npx',
      [
        '--no-install', 'smg', 'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', TINY_MODEL,
        '--host', '127.0.0.1', '--port', String(port), '--worker-base-port', '49100',
        '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort), '--router-drain-settle-secs', '0',
      ],
      { SMG_ZMQ_SOCKET_DIR: dir },
    );
    procs.push(npx);
    await waitForOk('serve readiness', `http://127.0.0.1:${port}/readiness`, 120_000, { detail: () => npx.output() });
    const tree = await descendants(npx.child.pid!);
    const smg = tree.find((p) => p.cmdline === 'smg::router');
    expect(smg, JSON.stringify(tree)).toBeDefined();
    const [engine] = launchedPids(npx.output());
    const all = [...tree.map((p) => p.pid)];
    strays.push(...all);

    const t0 = performance.now();
    npx.child.kill('SIGKILL');
    await waitGone('smg serve', smg!.pid, 60_000, () => npx.output());
    await waitGone('engine', engine.pid, 30_000, () => npx.output());
    await waitFor('every process npx had started gone', async () => {
      const left = [];
      for (const pid of all) {
        try {
          process.kill(pid, 0);
          left.push(pid);
        } catch {
          // gone
        }
      }
      return left.length === 0 ? true : undefined;
    }, 30_000);
    console.log(`[measure] kill -9 of npx → smg serve, engine and sh gone: ${(performance.now() - t0).toFixed(0)} ms`);
    const out = npx.output();
    expect(out).toMatch(/Ancestor process \(pid \d+, the package manager that started smg or a wrapper under it\) exited; shutting down as on SIGTERM/);
    expect(out).toContain('Gateway stopped');
    expect(await isPortAvailable(port)).toBe(true);
    expect(await serveFiles(dir)).toEqual([]);
  });
});
