/**
 * One `smg launch` gateway and one `smg mock-engine` as child processes over real ipc sockets,
 * with the official `openai` client pointed at the gateway. One rig per test file (beforeAll):
 * spawning and loading the Qwen3 tokenizer costs a second or two, so tests share it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import { MockEngineProcess, freeTcpPort, spawnMockEngine } from '../../../src/mock-engine/spawn.js';
import { killProc, runSmg, waitForOk } from './proc.js';
import { qwenModelDir } from './qwen.js';

export interface RigOptions {
  /** Extra mock-engine flags (`--mock-text`, `--max-model-len`, `--mock-mode`, …). */
  engineArgs?: string[];
  /** Extra `smg launch` flags. */
  gatewayArgs?: string[];
  /** Builds the served model dir inside the rig's temp dir (default: Qwen3 as `chat-model`). */
  modelDir?: (dir: string) => Promise<string>;
}

export interface Rig {
  /** Absolute model directory: the served model id and the `model` field of every request. */
  model: string;
  /** `http://127.0.0.1:<port>/v1`, for the openai client. */
  baseURL: string;
  /** `http://127.0.0.1:<port>`, for /workers, /readiness. */
  gatewayURL: string;
  metricsURL: string;
  openai: OpenAI;
  engine: MockEngineProcess;
  /** The gateway's combined stdout/stderr. */
  gatewayOutput: () => string;
  /** The gateway process's pid (RSS and descriptor checks read /proc/<pid>). */
  gatewayPid: number;
  stop: () => Promise<void>;
}

export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-oai-'));
  const model = await (opts.modelDir ?? qwenModelDir)(dir);
  const workerUrl = `ipc://${dir}/e0`;
  const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
  const baseURL = `http://127.0.0.1:${port}/v1`;

  const gw = runSmg([
    'launch', '--worker-urls', workerUrl, '--backend', 'vllm', '--model-path', model,
    '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
    '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '1', ...(opts.gatewayArgs ?? []),
  ]);

  const engine = spawnMockEngine({
    port: handshakePortFor(workerUrl),
    model,
    args: ['--mock-log-requests', ...(opts.engineArgs ?? [])],
  });

  const stop = async () => {
    await Promise.all([killProc(gw), engine.stop(2000)]);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitForOk('gateway readiness', `http://127.0.0.1:${port}/readiness`, 90_000, {
      detail: () => `gateway:\n${gw.output()}\nengine:\n${engine.output()}`,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  // maxRetries 0: a retried request would hide a status and double-count engine log lines.
  const openai = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 60_000 });
  const gatewayURL = `http://127.0.0.1:${port}`;
  const metricsURL = `http://127.0.0.1:${mport}/metrics`;
  return { model, baseURL, gatewayURL, metricsURL, openai, engine, gatewayOutput: () => gw.output(), gatewayPid: gw.child.pid!, stop };
}

let ridSeq = 0;

/**
 * A request id (`rid`) unique to this test run. Tests that read the mock's log look lines up by
 * engine request id: a line from an earlier request can still be in the pipe when the next test
 * starts, so "any line since X" would be racy.
 */
export function uniqueRid(tag: string): string {
  return `${tag}-${process.pid}-${++ridSeq}`;
}

export type EngineEvent = 'request added' | 'request finished' | 'abort';

/** The mock's log lines of one kind that name engine request `id`. */
export function engineLines(rig: Rig, event: EngineEvent, id: string): string[] {
  const re = new RegExp(`${event}: (?:.*[ ,])?${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[ ,])`);
  return rig.engine.lines.filter((l) => re.test(l));
}

/** Waits for the mock to log `event` for `id`; returns the line. */
export async function waitForEngineLine(rig: Rig, event: EngineEvent, id: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const [line] = engineLines(rig, event, id);
    if (line !== undefined) return line;
    if (Date.now() > end) throw new Error(`mock never logged "${event}" for ${id}:\n${rig.engine.lines.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets stray log lines arrive before asserting that something was never logged. */
export function settle(ms = 100): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
