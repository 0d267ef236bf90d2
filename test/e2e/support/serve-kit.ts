/**
 * Shared by the `smg serve` e2e files: run the real CLI with mock engines (bin/mock-python),
 * read engine pids from its log, and check processes really are gone (a dead child that nobody
 * reaped shows as a zombie, so `kill -0` is not enough: read /proc state and scan process groups).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { zmqIpcUrl } from '../../../src/launcher/ports.js';
import { freeTcpPort } from '../../../src/mock-engine/spawn.js';
import { killProc, ROOT, runSmg, TINY_MODEL, waitFor, type Proc } from './proc.js';

export const MOCK_PYTHON = join(ROOT, 'bin', 'mock-python');

/** Process state letter from /proc (R, S, Z, …), or null when the pid no longer exists. */
export async function procState(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/** Pids of live (non-zombie) processes whose process group is `pgid`. */
export async function liveGroupMembers(pgid: number): Promise<number[]> {
  const live: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields: state, ppid, pgrp, …
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(Number(name));
    } catch {
      // exited while scanning
    }
  }
  return live;
}

export async function isGone(pid: number): Promise<boolean> {
  const s = await procState(pid);
  return (s === null || s === 'Z') && (await liveGroupMembers(pid)).length === 0;
}

/** Engine pids in launch order, from `Launched vllm worker on <host>:<port> (pid <pid>, …)`. */
export function launchedPids(output: string): { port: number; pid: number }[] {
  return [...output.matchAll(/Launched \w+ worker on [^:]+:(\d+) \(pid (\d+),/g)].map((m) => ({
    port: Number(m[1]),
    pid: Number(m[2]),
  }));
}

/**
 * The engines `smg serve` launched from `base` up, checked to be there: each on the first free port
 * after the one before, so a port another process holds is skipped. A test must not expect the base
 * itself: the serve tests' bases are in Linux's ephemeral range, so any outgoing connection of a
 * parallel test can hold one.
 */
export function launchedFromBase(output: string, base: number): { port: number; pid: number }[] {
  const engines = launchedPids(output);
  let floor = base;
  for (const e of engines) {
    expect(e.port).toBeGreaterThanOrEqual(floor);
    floor = e.port + 1;
  }
  expect(floor).toBeLessThanOrEqual(base + 50);
  return engines;
}

/** Kills a test's `smg serve`, every engine group it reported launching, and its socket dir. */
export async function stopServe(proc: Proc, dir: string): Promise<void> {
  await killProc(proc);
  for (const { pid } of launchedPids(proc.output())) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(dir, { recursive: true, force: true });
}

export interface ServeRun {
  readonly proc: Proc;
  readonly dir: string;
  readonly base: string;
  workerUrl(port: number): string;
  cleanup(): Promise<void>;
}

/** `smg serve` on mock engines with its own socket dir and free gateway/metrics ports. */
export async function serveOnMocks(
  extra: readonly string[],
  workerBasePort: number,
  backend: 'vllm' | 'tokenspeed' = 'vllm',
): Promise<ServeRun> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-serve-e2e-'));
  const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
  const proc = runSmg(
    [
      'serve', '--backend', backend, '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', TINY_MODEL,
      '--host', '127.0.0.1', '--port', String(port), '--worker-base-port', String(workerBasePort),
      '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort),
      '--router-drain-settle-secs', '0',
      ...extra,
    ],
    { SMG_ZMQ_SOCKET_DIR: dir },
  );
  return {
    proc,
    dir,
    base: `http://127.0.0.1:${port}`,
    workerUrl: (p) => zmqIpcUrl(p, dir),
    cleanup: () => stopServe(proc, dir),
  };
}

export interface WorkerEntry {
  url: string;
  status: string;
}

export async function workerStatus(base: string, url: string): Promise<string | undefined> {
  const body = (await (await fetch(`${base}/workers`)).json()) as { workers: WorkerEntry[] };
  return body.workers.find((w) => w.url === url)?.status;
}

export async function readiness(base: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/readiness`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * A request whose body never completes, so the gateway counts it in flight: an idle gateway ends
 * its drain at once instead of waiting out the settle time. Resolves once the gateway has read
 * its headers; `release()` drops the connection.
 */
export async function holdRequestInFlight(base: string): Promise<{ release(): void }> {
  const port = Number(new URL(base).port);
  const held = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/completions', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
  held.on('error', () => {});
  held.write('{"model":');
  await new Promise<void>((resolve) => held.on('socket', (sock) => sock.once('connect', () => resolve())));
  // Answered after the held request's headers were read on the other connection.
  await waitFor('request in flight', async () => ((await fetch(`${base}/liveness`)).ok ? true : undefined));
  return { release: () => held.destroy() };
}
