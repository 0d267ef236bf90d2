/**
 * For the e2e files about how `smg serve` and `smg launch` start, stop and die: any command as a
 * child process with its output, the process tree under a pid, fake Python interpreters, and the
 * serve's files in a socket directory (pid files, socket files).
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClaim, type WorkerClaim } from '../../../src/launcher/worker-claims.js';
import { freeTcpPort } from '../../../src/mock-engine/spawn.js';
import { killProc, ROOT, SMG_BIN, TINY_MODEL, waitFor, type Proc } from './proc.js';
import { isGone, launchedPids, MOCK_PYTHON } from './serve-kit.js';

const SIGNO: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** `command args…` from the repo root with combined output, like runSmg for any command. */
export function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, opts: SpawnOptions = {}): Proc {
  const child = spawn(command, [...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, sig) => resolve(code ?? 128 + (SIGNO[sig ?? ''] ?? 0))),
  );
  return { child, output: () => out, exited };
}

interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

async function processTable(): Promise<ProcInfo[]> {
  const rows: ProcInfo[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      rows.push({ pid: Number(name), ppid: Number(fields[1]), cmdline });
    } catch {
      // exited while scanning
    }
  }
  return rows;
}

/** Live descendants of `pid` (children, grandchildren, …) with their command lines. */
export async function descendants(pid: number): Promise<ProcInfo[]> {
  const table = await processTable();
  const out: ProcInfo[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const p of table) {
      if (p.ppid === parent) {
        out.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return out;
}

export async function waitGone(what: string, pid: number, timeoutMs = 60_000, detail?: () => string): Promise<void> {
  await waitFor(what, async () => ((await isGone(pid)) ? true : undefined), timeoutMs, { detail, stepMs: 50 });
}

export async function privateDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o700);
  return dir;
}

/** An executable `sh` script standing in for Python. */
export async function fakePython(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

/** Serve's files in its socket directory, sorted: `engine-<port>.pid`, `engine-<port>-in.sock`, … */
export async function serveFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((f) => f.endsWith('.pid') || f.endsWith('.sock')).sort();
  } catch {
    return [];
  }
}

export async function claims(dir: string): Promise<WorkerClaim[]> {
  const files = (await serveFiles(dir)).filter((f) => f.endsWith('.pid'));
  return files.map((f) => readClaim(join(dir, f))).filter((c): c is WorkerClaim => c !== null);
}

export interface ServeOptions {
  /** Socket directory (shared by two serves in one test); a fresh private one by default. */
  dir?: string;
  python?: string;
  workerBasePort?: number;
  extra?: readonly string[];
  /** Serve's argv before the gateway ports; default the mock engine with the tiny model. */
  model?: string | null;
  /** Run through this wrapper, e.g. ['timeout', '--preserve-status', '600']. */
  wrapper?: readonly string[];
}

export interface ServeRun {
  readonly proc: Proc;
  readonly dir: string;
  readonly base: string;
  readonly port: number;
  readonly metricsPort: number;
  cleanup(): Promise<void>;
}

/** `node bin/smg.js serve …` on mock engines (or a fake interpreter), free gateway/metrics ports. */
export async function startServeRun(opts: ServeOptions = {}): Promise<ServeRun> {
  const dir = opts.dir ?? (await privateDir('smg-life-'));
  const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
  const model = opts.model === undefined ? TINY_MODEL : opts.model;
  const argv = [
    'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', opts.python ?? MOCK_PYTHON,
    ...(model === null ? [] : ['--model', model]),
    '--host', '127.0.0.1', '--port', String(port),
    ...(opts.workerBasePort === undefined ? [] : ['--worker-base-port', String(opts.workerBasePort)]),
    '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort),
    '--router-drain-settle-secs', '0',
    ...(opts.extra ?? []),
  ];
  const wrapper = opts.wrapper ?? [];
  const proc =
    wrapper.length > 0
      ? runCommand(wrapper[0], [...wrapper.slice(1), process.execPath, SMG_BIN, ...argv], { SMG_ZMQ_SOCKET_DIR: dir })
      : runCommand(process.execPath, [SMG_BIN, ...argv], { SMG_ZMQ_SOCKET_DIR: dir });
  return {
    proc,
    dir,
    base: `http://127.0.0.1:${port}`,
    port,
    metricsPort,
    async cleanup() {
      await killProc(proc);
      for (const { pid } of launchedPids(proc.output())) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      for (const c of await claims(dir)) {
        for (const ref of [c.engine, c.reaper]) {
          if (!ref) continue;
          try {
            process.kill(ref === c.engine ? -ref.pid : ref.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
      if (opts.dir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
