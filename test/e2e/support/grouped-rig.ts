/**
 * Kit for grouped (data-parallel) worker runs: one `smg launch` and any number of `smg mock-engine`
 * processes whose ranks dial the same worker. Rank placement is read back from the mocks' own
 * `request added: … rank=N` lines, i.e. from where requests really arrived, not from the gateway.
 * Used by test/e2e/grouped*.test.ts and scripts/rank-spread.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import { MockEngineProcess, freeTcpPort, spawnMockEngineArgv } from '../../../src/mock-engine/spawn.js';
import { SMG_BIN, TINY_MODEL, waitForOk } from './proc.js';

export interface GatewayOptions {
  /** `--zmq-engine-count`; omitted when undefined. */
  engineCount?: number;
  backend?: 'vllm' | 'tokenspeed';
  /** false: start with no --worker-urls (workers come through POST /workers). */
  startupWorker?: boolean;
  args?: string[];
}

export interface Gateway {
  proc: MockEngineProcess;
  base: string;
  metricsUrl: string;
  dir: string;
  /** The startup worker's URL (also usable for a POSTed worker when startupWorker is false). */
  workerUrl: string;
  /** The handshake port derived from workerUrl: what the mock ranks dial. */
  handshakePort: number;
  stop(): Promise<void>;
}

/**
 * Starts the gateway and waits until its HTTP server answers (not until a worker is ready). A free
 * port can be taken by a parallel test before the gateway binds it: then it starts again on others.
 */
export async function startGateway(o: GatewayOptions = {}): Promise<Gateway> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startGatewayOnce(o);
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test((err as Error).message)) throw err;
    }
  }
}

async function startGatewayOnce(o: GatewayOptions): Promise<Gateway> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-dp-'));
  const workerUrl = `ipc://${dir}/g0`;
  const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
  const argv = [
    SMG_BIN, 'launch', '--backend', o.backend ?? 'vllm', '--model-path', TINY_MODEL,
    '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
    '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '1',
  ];
  if (o.startupWorker !== false) argv.push('--worker-urls', workerUrl);
  if (o.engineCount !== undefined) argv.push('--zmq-engine-count', String(o.engineCount));
  argv.push(...(o.args ?? []));
  const proc = new MockEngineProcess(spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] }));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop(3000);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // A gateway that exits (a port taken meanwhile) fails at once, not after the whole wait.
    const died = proc.exited.then((st) => {
      throw new Error(`gateway exited (${st.code ?? st.signal}) before it was live\n${proc.output()}`);
    });
    died.catch(() => {});
    await Promise.race([waitForOk('gateway liveness', `${base}/liveness`, 60_000, { detail: () => proc.output() }), died]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { proc, base, metricsUrl: `http://127.0.0.1:${mport}/metrics`, dir, workerUrl, handshakePort: handshakePortFor(workerUrl), stop };
}

export interface RanksOptions {
  port: number;
  /** Group size (`--data-parallel-size`). */
  size: number;
  /** Ranks in this process; default: all of them. */
  local?: number;
  startRank?: number;
  args?: string[];
}

/** One mock process serving ranks startRank..startRank+local-1 of a group of `size`. */
export function startRanks(o: RanksOptions): MockEngineProcess {
  return spawnMockEngineArgv([
    'serve', TINY_MODEL, '--headless',
    '--data-parallel-size', String(o.size),
    '--data-parallel-size-local', String(o.local ?? o.size),
    '--data-parallel-start-rank', String(o.startRank ?? 0),
    '--data-parallel-address', '127.0.0.1',
    '--data-parallel-rpc-port', String(o.port),
    '--mock-log-requests',
    ...(o.args ?? []),
  ]);
}

export interface TsEnginesOptions {
  port: number;
  /** `--zmq-engine-index`: the identity of rank 0; rank r dials as base + r. */
  base?: number;
  /** Attention-DP ranks in this process (`--data-parallel-size`). */
  size: number;
  args?: string[];
}

/** One TokenSpeed mock process with `size` ranks, identities base..base+size-1. */
export function startTsEngines(o: TsEnginesOptions): MockEngineProcess {
  return spawnMockEngineArgv([
    '--backend', 'tokenspeed', 'serve', '--headless', '--model', TINY_MODEL,
    '--data-parallel-address', '127.0.0.1',
    '--data-parallel-rpc-port', String(o.port),
    '--zmq-engine-index', String(o.base ?? 0),
    '--data-parallel-size', String(o.size),
    // Required by the engine for DP > 1; the mock opens no rendezvous port.
    '--dist-init-addr', '127.0.0.1:1',
    '--mock-log-requests',
    ...(o.args ?? []),
  ]);
}

export async function waitReady(gw: Gateway, engines: MockEngineProcess[] = [], timeoutMs = 90_000): Promise<void> {
  await waitForOk('gateway readiness', `${gw.base}/readiness`, timeoutMs, {
    detail: () => `gateway:\n${gw.proc.output()}\n${engines.map((e, i) => `engine ${i}:\n${e.output()}`).join('\n')}`,
  });
}

export interface EngineView {
  rank: number;
  in_flight: number;
  num_running: number | null;
  num_waiting: number | null;
  kv_cache_usage: number | null;
}

export interface WorkerView {
  id: string;
  url: string;
  status: string;
  dp_size?: number;
  engines: EngineView[];
  engine_load: { engine_count: number; engines_connected: number; in_flight: number; num_running: number; num_waiting: number };
}

export async function workers(gw: Gateway): Promise<WorkerView[]> {
  const body = (await (await fetch(`${gw.base}/workers`)).json()) as { workers: WorkerView[] };
  return body.workers;
}

export async function enginesOf(gw: Gateway): Promise<EngineView[]> {
  return (await workers(gw))[0]?.engines ?? [];
}

/** POST /v1/completions; resolves with the parsed body, rejects on a non-200. */
export async function complete(gw: Gateway, prompt: string, maxTokens: number): Promise<{ id: string; choices: { text: string }[] }> {
  const res = await fetch(`${gw.base}/v1/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: TINY_MODEL, prompt, max_tokens: maxTokens }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`completion failed with ${res.status}: ${text}`);
  return JSON.parse(text) as { id: string; choices: { text: string }[] };
}

export async function chat(gw: Gateway, content: string, maxTokens: number): Promise<{ choices: { message: { content: string }; finish_reason: string }[] }> {
  const res = await fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content }], max_tokens: maxTokens }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`chat completion failed with ${res.status}: ${text}`);
  return JSON.parse(text) as { choices: { message: { content: string }; finish_reason: string }[] };
}

// vLLM mocks log the rank as `rank=N`, TokenSpeed mocks the engine index as `engine=N`.
const ADDED = /request added: (\S+) .*\b(?:rank|engine)=(\d+)/;

/** Request id → rank, from `request added` lines of every mock (from line `from[i]` of mock i). */
export function placements(mocks: MockEngineProcess[], from: number[] = []): Map<string, number> {
  const out = new Map<string, number>();
  mocks.forEach((m, i) => {
    for (const line of m.lines.slice(from[i] ?? 0)) {
      const hit = ADDED.exec(line);
      if (hit) out.set(hit[1], Number(hit[2]));
    }
  });
  return out;
}

/** How many requests each rank received: ranks 0..n-1 for a number, else those listed, in order. */
export function perRank(placed: Map<string, number>, ranks: number | readonly number[]): number[] {
  const list = typeof ranks === 'number' ? Array.from({ length: ranks }, (_, i) => i) : ranks;
  const counts = list.map(() => 0);
  for (const r of placed.values()) {
    const i = list.indexOf(r);
    if (i < 0) throw new Error(`a request landed on unexpected rank ${r}`);
    counts[i] += 1;
  }
  return counts;
}

export const lineCounts = (mocks: MockEngineProcess[]): number[] => mocks.map((m) => m.lines.length);
