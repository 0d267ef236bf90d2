/**
 * A front `smg launch` over `smg serve` "hosts" for the beyond-one-host e2e files: each host is a
 * real `smg serve` on mock engines bound to its own loopback address (127.0.0.2, 127.0.0.3), all
 * on one port, as GPU hosts would each run one on the same port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from '../../../src/mock-engine/spawn.js';
import { killProc, runSmg, TINY_MODEL, waitFor, type Proc } from './proc.js';
import { launchedPids, MOCK_PYTHON } from './serve-kit.js';

export interface Host {
  readonly address: string;
  readonly port: number;
  readonly url: string;
  /** The host's own Prometheus endpoint. */
  readonly metrics: string;
  proc: Proc;
  /** SIGKILL the host and its engines (a machine that dies). */
  kill(): Promise<void>;
  /** Start it again on the same address and port. */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

async function killTree(proc: Proc): Promise<void> {
  const pids = launchedPids(proc.output()).map((e) => e.pid);
  await killProc(proc);
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export async function startHost(address: string, port: number, engineArgs: readonly string[] = []): Promise<Host> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-host-'));
  const workerBase = await freeTcpPort();
  const metricsPort = await freeTcpPort();
  const spawnHost = () =>
    runSmg(
      [
        'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', TINY_MODEL,
        '--host', address, '--port', String(port), '--worker-base-port', String(workerBase),
        '--router-prometheus-host', address, '--router-prometheus-port', String(metricsPort),
        '--router-drain-settle-secs', '0',
        ...(engineArgs.length > 0 ? ['--', ...engineArgs] : []),
      ],
      { SMG_ZMQ_SOCKET_DIR: dir },
    );
  const host: Host = {
    address,
    port,
    url: `http://${address}:${port}`,
    metrics: `http://${address}:${metricsPort}/metrics`,
    proc: spawnHost(),
    async kill() {
      await killTree(host.proc);
    },
    async restart() {
      await killTree(host.proc);
      host.proc = spawnHost();
    },
    async cleanup() {
      await killTree(host.proc);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return host;
}

/** Waits until the host's own /readiness is 200. */
export async function hostReady(host: Host, timeoutMs = 60_000): Promise<void> {
  await waitFor(`host ${host.url} ready`, async () => ((await fetch(`${host.url}/readiness`)).ok ? true : undefined), timeoutMs, {
    detail: () => host.proc.output(),
  });
}

export interface Front {
  readonly proc: Proc;
  readonly base: string;
  readonly metrics: string;
  cleanup(): Promise<void>;
}

export async function startFront(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Front> {
  const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
  const proc = runSmg([
    'launch', '--host', '127.0.0.1', '--port', String(port),
    '--prometheus-host', '127.0.0.1', '--prometheus-port', String(metricsPort),
    '--drain-settle-secs', '0',
    ...args,
  ], env);
  return {
    proc,
    base: `http://127.0.0.1:${port}`,
    metrics: `http://127.0.0.1:${metricsPort}/metrics`,
    cleanup: () => killProc(proc),
  };
}

interface WorkerRow {
  url: string;
  status: string;
}

export async function frontWorkers(front: Front): Promise<WorkerRow[]> {
  return ((await (await fetch(`${front.base}/workers`)).json()) as { workers: WorkerRow[] }).workers;
}

/** Waits until the front lists `url` with `status`. */
export async function workerIs(front: Front, url: string, status: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(`${url} ${status} on the front`, async () => ((await frontWorkers(front)).find((w) => w.url === url)?.status === status ? true : undefined), timeoutMs, {
    detail: () => `${JSON.stringify(front.proc.output().slice(-3000))}`,
  });
}

/** Requests a host served on `path` (its own smg_http_requests_total), 0 when it is down. */
export async function hostRequests(host: Host, path: string): Promise<number> {
  const text = await (await fetch(host.metrics)).text();
  const line = text.split('\n').find((l) => l.startsWith('smg_http_requests_total{') && l.includes(`path="${path}"`) && l.includes('method="POST"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
