/**
 * Test kit for the TokenSpeed e2e files: `smg launch --backend tokenspeed` and TokenSpeed mock
 * engines (`smg mock-engine -m tokenspeed.cli serve …`, the argv a launcher hands the real engine)
 * as child processes over real ipc sockets, with the official `openai` client on the gateway.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { type APIError } from 'openai';
import { expect } from 'vitest';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import { freeTcpPort, spawnMockEngineArgv, type MockEngineProcess } from '../../../src/mock-engine/spawn.js';
import { killProc, runSmg, waitFor, waitForOk, type Proc } from './proc.js';
import { qwenModelDir } from './qwen.js';

export const TS_TEXT = 'Hello from TokenSpeed. All good here.';

/** `python -m tokenspeed.cli serve …` as `smg serve` builds it, dialing `port`. */
export function tokenspeedArgv(model: string, port: number, extra: string[] = []): string[] {
  return [
    '-m', 'tokenspeed.cli', 'serve', '--headless', '--model', model,
    '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(port), '--zmq-engine-index', '0',
    '--mock-log-requests', '--mock-text', TS_TEXT, ...extra,
  ];
}

export function spawnTokenSpeed(model: string, port: number, extra: string[] = []): MockEngineProcess {
  return spawnMockEngineArgv(tokenspeedArgv(model, port, extra));
}

export interface TsRigOptions {
  /** Flags for the engine (`--enable-output-logprobs`, `--mock-fault …`). */
  engineArgs?: string[];
  gatewayArgs?: string[];
  /** `--backend` given to `smg launch`; null = none (the wrong-runtime case). */
  backend?: 'tokenspeed' | 'vllm' | null;
  /** Wait for readiness (default true). */
  awaitReady?: boolean;
  /** Builds the served model dir inside the rig's temp dir (default: Qwen3 as `chat-model`). */
  modelDir?: (dir: string) => Promise<string>;
}

export interface TsRig {
  dir: string;
  model: string;
  workerUrl: string;
  gatewayURL: string;
  metricsURL: string;
  openai: OpenAI;
  engine: MockEngineProcess;
  gateway: Proc;
  /** Replaces the engine with a fresh one (after a kill), dialing the same handshake port. */
  restartEngine(extra?: string[]): MockEngineProcess;
  stop(): Promise<void>;
}

export async function startTsRig(opts: TsRigOptions = {}): Promise<TsRig> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-ts-'));
  const model = await (opts.modelDir ?? qwenModelDir)(dir);
  const workerUrl = `ipc://${dir}/ts0`;
  const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
  const backend = opts.backend === undefined ? 'tokenspeed' : opts.backend;
  const gateway = runSmg([
    'launch', '--worker-urls', workerUrl, ...(backend ? ['--backend', backend] : []), '--model-path', model,
    '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
    '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '1', ...(opts.gatewayArgs ?? []),
  ]);
  const hsPort = handshakePortFor(workerUrl);
  const rig: TsRig = {
    dir,
    model,
    workerUrl,
    gatewayURL: `http://127.0.0.1:${port}`,
    metricsURL: `http://127.0.0.1:${mport}/metrics`,
    // maxRetries 0: a retry would hide the status under test and double-count engine log lines.
    openai: new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 }),
    engine: spawnTokenSpeed(model, hsPort, opts.engineArgs),
    gateway,
    restartEngine(extra) {
      rig.engine = spawnTokenSpeed(model, hsPort, extra ?? opts.engineArgs);
      return rig.engine;
    },
    async stop() {
      await killProc(gateway);
      await rig.engine.stop(2000);
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (opts.awaitReady !== false) {
    try {
      await waitForOk('gateway readiness', `${rig.gatewayURL}/readiness`, 90_000, {
        detail: () => `gateway:\n${gateway.output()}\nengine:\n${rig.engine.output()}`,
      });
    } catch (err) {
      await rig.stop();
      throw err;
    }
  }
  return rig;
}

/** Engine log lines matching `re` since line `from`. */
export function engineLines(rig: TsRig, from: number, re: RegExp): string[] {
  return rig.engine.lines.slice(from).filter((l) => re.test(l));
}

export async function waitForEngineLine(rig: TsRig, from: number, re: RegExp, timeoutMs = 30_000): Promise<string> {
  return waitFor(`engine line ${re}`, async () => engineLines(rig, from, re)[0], timeoutMs, {
    detail: () => rig.engine.lines.slice(from).join('\n'),
  });
}

/** The JSON summary the mock logs for an admitted-or-refused ADD of a rid containing `part`. */
export function addedRequests(rig: TsRig, from: number): { rid: string; fields: Record<string, unknown> }[] {
  return engineLines(rig, from, /request added: /).map((l) => {
    const m = /request added: (\S+) (\{.*\})/.exec(l);
    if (!m) throw new Error(`unparsable line: ${l}`);
    return { rid: m[1], fields: JSON.parse(m[2]) as Record<string, unknown> };
  });
}

/** The APIError a request must fail with (the test fails if it succeeds or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<APIError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as APIError;
}
