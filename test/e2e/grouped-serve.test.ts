/**
 * `smg serve` with mock engines (bin/mock-python): an engine-level `-- --data-parallel-size 2`
 * becomes one grouped worker of 2 engines, while serve's own `--data-parallel-size 2` means two
 * replicas, each its own single-engine worker.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MockEngineProcess, freeTcpPort } from '../../src/mock-engine/spawn.js';
import { complete, perRank, placements, workers, type Gateway } from './support/grouped-rig.js';
import { SMG_BIN, TINY_MODEL, waitFor, waitForOk } from './support/proc.js';
import { MOCK_PYTHON } from './support/serve-kit.js';

interface Served {
  gw: Gateway;
  proc: MockEngineProcess;
}

const started: Served[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) await s.gw.stop();
});

/** `smg serve` with the mock engine; the engine's log lines come out on serve's own stdout. */
async function serve(serveArgs: string[], engineArgs: string[]): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-serve-dp-'));
  await chmod(dir, 0o700);
  const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
  const argv = [
    SMG_BIN, 'serve', '--backend', 'vllm', '--connection-mode', 'zmq',
    '--python', MOCK_PYTHON, '--model', TINY_MODEL,
    '--host', '127.0.0.1', '--port', String(port),
    '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(mport),
    '--router-drain-settle-secs', '0', '--router-shutdown-grace-period-secs', '1',
    ...serveArgs, '--', ...engineArgs, '--mock-log-requests', '--mock-token-delay-ms', '20',
  ];
  const proc = new MockEngineProcess(
    spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SMG_ZMQ_SOCKET_DIR: dir } }),
  );
  const gw: Gateway = {
    proc,
    base: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${mport}/metrics`,
    dir,
    workerUrl: '',
    handshakePort: 0,
    stop: async () => {
      await proc.stop(5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
  const served = { gw, proc };
  started.push(served);
  await waitForOk('serve readiness', `${gw.base}/readiness`, 90_000, { detail: () => proc.output() });
  return served;
}

describe('smg serve and data parallelism (e2e, mock engines)', () => {
  it('engine DP 2 after `--` is one grouped worker of 2 engines that spreads a burst', async () => {
    const { gw, proc } = await serve([], ['--data-parallel-size', '2']);
    const ws = await workers(gw);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ dp_size: 2, engine_load: { engine_count: 2, engines_connected: 2 } });
    expect(ws[0].engines.map((e) => e.rank)).toEqual([0, 1]);
    expect(proc.output()).toMatch(/Binding ZMQ client for worker \S+ \(handshake=\S+, engines=2\)/);

    const from = proc.lines.length;
    await Promise.all([complete(gw, 'serve one', 10), complete(gw, 'serve two', 10)]);
    expect(perRank(placements([proc], [from]), 2)).toEqual([1, 1]);
  });

  it("serve's own --data-parallel-size 2 means 2 replicas, each a single-engine worker", async () => {
    const { gw } = await serve(['--data-parallel-size', '2'], []);
    const ws = await waitFor('both replicas ready', async () => {
      const list = await workers(gw);
      return list.length === 2 && list.every((w) => w.status === 'ready') ? list : undefined;
    });
    for (const w of ws) {
      expect(w.dp_size).toBeUndefined();
      expect(w.engine_load.engine_count).toBe(1);
      expect(w.engines.map((e) => e.rank)).toEqual([0]);
    }
    expect(new Set(ws.map((w) => w.url)).size).toBe(2);
  });
});
