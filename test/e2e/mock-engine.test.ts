/**
 * `smg mock-engine` against the real gateway-side engine client: handshake, streaming, stop rules,
 * abort, and every fault mode as the client detects it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { EngineChunk, RequestStream } from '../../src/engine/client-types.js';
import { EngineError } from '../../src/engine/client-types.js';
import { vllmDialect } from '../../src/engine/dialects/vllm/index.js';
import { connectEngineClient, type EngineClient } from '../../src/engine/engine-client.js';
import type { EngineRequest, SamplingSpec } from '../../src/engine/types.js';
import { freeTcpPort, spawnMockEngine, spawnMockEngineArgv, headlessServeArgv, type MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { createLogger, silentLogger } from '../../src/util/logger.js';
import { samplingSpec } from '../support/sampling.js';

interface Rig {
  engine: MockEngineProcess;
  client: EngineClient;
  dir: string;
  /** The client's own log lines (why it declared the engine dead). */
  clientLog: string[];
}

const rigs: Rig[] = [];

async function startRig(opts: { ranks?: number; args?: string[]; silenceTimeoutMs?: number; argv?: (port: number) => string[] } = {}): Promise<Rig> {
  const ranks = opts.ranks ?? 1;
  const dir = await mkdtemp(join(tmpdir(), 'smg-mock-'));
  const port = await freeTcpPort();
  const engine = opts.argv
    ? spawnMockEngineArgv(opts.argv(port))
    : spawnMockEngine({ port, ranks, args: ['--mock-log-requests', ...(opts.args ?? [])] });
  const clientLog: string[] = [];
  const rig: Rig = { engine, dir, clientLog, client: undefined as unknown as EngineClient };
  rigs.push(rig);
  const sink = { write: (line: string) => clientLog.push(line) } as unknown as NodeJS.WritableStream;
  rig.client = await connectEngineClient({
    url: `ipc://${dir}/engine`,
    engineCount: ranks,
    dialect: vllmDialect,
    handshakeAddress: `tcp://127.0.0.1:${port}`,
    stageTimeoutMs: 20_000,
    silenceTimeoutMs: opts.silenceTimeoutMs,
    logger: createLogger({ level: 'info', destination: sink }),
  });
  return rig;
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.client?.close();
  await rig.engine.stop();
  await rm(rig.dir, { recursive: true, force: true });
}

afterEach(async () => {
  await Promise.all(rigs.splice(0).map(stopRig));
});

function sampling(over: Partial<SamplingSpec> = {}): SamplingSpec {
  return samplingSpec({ temperature: 0, maxTokens: 8, ...over });
}

let seq = 0;
function request(over: Partial<SamplingSpec> = {}, extra: Partial<EngineRequest> = {}): EngineRequest {
  seq += 1;
  return {
    requestId: `req-${seq}`,
    promptTokenIds: [1, 2, 3],
    sampling: sampling(over),
    arrivalTime: Date.now() / 1000,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    ...extra,
  };
}

interface Collected {
  chunks: EngineChunk[];
  tokens: number[];
  finish: string | null;
  stopReason: number | string | null;
}

async function collect(stream: RequestStream): Promise<Collected> {
  const chunks: EngineChunk[] = [];
  for await (const c of stream) chunks.push(c);
  const last = chunks[chunks.length - 1];
  return { chunks, tokens: chunks.flatMap((c) => c.newTokenIds), finish: last?.finish ?? null, stopReason: last?.stopReason ?? null };
}

async function failure(stream: RequestStream): Promise<EngineError> {
  try {
    await collect(stream);
  } catch (err) {
    return err as EngineError;
  }
  throw new Error('request finished instead of failing');
}

describe('mock-engine serving (one engine, many requests)', () => {
  let rig: Rig;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-mock-'));
    const port = await freeTcpPort();
    const engine = spawnMockEngine({ port, args: ['--mock-log-requests', '--mock-token-delay-ms', '5'] });
    rig = { engine, dir, clientLog: [], client: undefined as unknown as EngineClient };
    rig.client = await connectEngineClient({
      url: `ipc://${dir}/engine`,
      engineCount: 1,
      dialect: vllmDialect,
      handshakeAddress: `tcp://127.0.0.1:${port}`,
      stageTimeoutMs: 20_000,
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    if (rig) await stopRig(rig);
  });

  it('registers like vLLM 0.27.1 and logs the handshake', async () => {
    const reg = rig.client.registrations[0];
    expect(reg.version).toBe('0.27.1');
    expect(reg.maxModelLen).toBe(4096);
    expect(reg.dataParallelSize).toBe(1);
    expect(reg.dataParallelRank).toBe(0);
    expect(Object.keys(reg.raw)).toHaveLength(18);
    // The child's log pipe may lag the sockets a little.
    await rig.engine.waitForLine(/serving: 1 rank\(s\) registered and READY/);
    const out = rig.engine.output();
    expect(out).toMatch(/HELLO sent/);
    expect(out).toMatch(/INIT received/);
    expect(out).toMatch(/READY sent/);
  });

  it('streams count-mode tokens one per step and ends with length at max_tokens', async () => {
    const r = await collect(rig.client.submit(request({ maxTokens: 5 })));
    expect(r.tokens).toEqual([100, 101, 102, 103, 104]);
    expect(r.chunks).toHaveLength(5);
    expect(r.finish).toBe('length');
    expect(r.chunks[0].cachedTokens).toBe(0);
  });

  it('stops on a stop token id with stop_reason = that id', async () => {
    const r = await collect(rig.client.submit(request({ maxTokens: 10, stopTokenIds: [103], allStopTokenIds: [103] })));
    expect(r.tokens).toEqual([100, 101, 102, 103]);
    expect(r.finish).toBe('stop');
    expect(r.stopReason).toBe(103);
  });

  it('stops on EOS with no stop_reason, unless ignore_eos', async () => {
    const eos = await collect(rig.client.submit(request({ maxTokens: 10, eosTokenId: 102, allStopTokenIds: [102] })));
    expect(eos.tokens).toEqual([100, 101, 102]);
    expect(eos.finish).toBe('stop');
    expect(eos.stopReason).toBeNull();
    const ign = await collect(rig.client.submit(request({ maxTokens: 6, eosTokenId: 102, allStopTokenIds: [102], ignoreEos: true })));
    expect(ign.tokens).toEqual([100, 101, 102, 103, 104, 105]);
    expect(ign.finish).toBe('length');
  });

  it('holds stops back until min_tokens', async () => {
    const r = await collect(
      rig.client.submit(request({ maxTokens: 10, minTokens: 4, stopTokenIds: [101], eosTokenId: 102, allStopTokenIds: [101, 102] })),
    );
    expect(r.tokens).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
    expect(r.finish).toBe('length');
  });

  it('returns deterministic logprobs with the sampled token first', async () => {
    const r = await collect(rig.client.submit(request({ maxTokens: 2, logprobs: 3 })));
    const lp = r.chunks[0].logprobs;
    expect(lp).toHaveLength(1);
    expect(lp?.[0].tokenId).toBe(100);
    expect(lp?.[0].rank).toBe(1);
    expect(lp?.[0].top.map((t) => t.tokenId)).toEqual([100, 101, 102]);
    expect(lp?.[0].logprob).toBeLessThan(0);
  });

  it('makes seeds observable: same seed same ids, another seed other ids', async () => {
    const run = (seed: number) => collect(rig.client.submit(request({ temperature: 0.8, seed, maxTokens: 3 })));
    const [a, b, c] = await Promise.all([run(1), run(1), run(2)]);
    expect(a.tokens).toEqual(b.tokens);
    expect(a.tokens).not.toEqual(c.tokens);
  });

  it('batches concurrent requests and finishes each', async () => {
    const rs = await Promise.all([1, 2, 3, 4].map((n) => collect(rig.client.submit(request({ maxTokens: n * 2 })))));
    expect(rs.map((r) => r.tokens.length)).toEqual([2, 4, 6, 8]);
  });

  it('drops an aborted request silently and logs the abort', async () => {
    const req = request({ maxTokens: 4000 });
    const stream = rig.client.submit(req);
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    rig.client.abort(req.requestId);
    await rig.engine.waitForLine(new RegExp(`abort: ${req.requestId} \\(1 in flight\\)`));
    expect(rig.engine.output()).not.toMatch(new RegExp(`request finished: ${req.requestId}`));
    // The engine stays healthy for later requests.
    const r = await collect(rig.client.submit(request({ maxTokens: 2 })));
    expect(r.finish).toBe('length');
  });
});

describe('mock-engine handshake', () => {
  it('brings up two ranks with identities 0 and 1', async () => {
    const rig = await startRig({ ranks: 2 });
    expect(rig.client.registrations.map((r) => r.dataParallelRank).sort()).toEqual([0, 1]);
    const reqs = [0, 1].map((rank) => collect(rig.client.submit(request({ maxTokens: 3 }, { dataParallelRank: rank }))));
    for (const r of await Promise.all(reqs)) expect(r.tokens).toEqual([100, 101, 102]);
  });

  it('serves a MoE lockstep group through the client wave clock, wave after wave', async () => {
    const rig = await startRig({ ranks: 2, args: ['--mock-lockstep'] });
    expect(rig.client.lockstep).toBe(true);
    for (let round = 0; round < 3; round++) {
      const reqs = [0, 1].map((rank) => collect(rig.client.submit(request({ maxTokens: 3 }, { dataParallelRank: rank }))));
      for (const r of await Promise.all(reqs)) expect(r.tokens).toEqual([100, 101, 102]);
      // Let the group drain and park (wave_complete) before the next round.
      const parked = () => rig.engine.lines.filter((l) => l.includes('lockstep group drained')).length;
      while (parked() < round + 1) await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('accepts the python -m vllm launch form, warns once about unknown flags, and supports READY-first', async () => {
    const rig = await startRig({
      argv: (port) => [
        'python3',
        '-m',
        'vllm.entrypoints.cli.main',
        ...headlessServeArgv('Qwen/Qwen3-0.6B', 1, port),
        '--tensor-parallel-size',
        '2',
        '--enforce-eager',
        '--gpu-memory-utilization',
        '0.9',
        '--max-model-len',
        '2048',
        '--mock-ready-first',
      ],
    });
    expect(rig.client.registrations[0].maxModelLen).toBe(2048);
    expect(rig.client.registrations[0].worldSize).toBe(2);
    const warns = rig.engine.lines.filter((l) => l.includes('ignoring engine flags'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain('--enforce-eager --gpu-memory-utilization 0.9');
    // The client may finish the handshake before the mock's log line has crossed its stdout pipe.
    await rig.engine.waitForLine(/READY sent \(before registration\)/);
  });

  it('exits non-zero when no INIT arrives in time', async () => {
    const port = await freeTcpPort();
    const engine = spawnMockEngine({ port, args: ['--mock-init-timeout-s', '1'] });
    const status = await engine.exited;
    expect(status.code).toBe(1);
    expect(engine.output()).toMatch(/Did not receive response from front-end process within 1 second/);
  });
});

describe('mock-engine faults, as the client sees them', () => {
  it('dead: the sentinel fails in-flight requests with kind dead and the engine exits 1', async () => {
    const rig = await startRig({ args: ['--mock-fault', 'dead', '--mock-fault-after-tokens', '2', '--mock-token-delay-ms', '5'] });
    const err = await failure(rig.client.submit(request({ maxTokens: 100 })));
    expect(err.kind).toBe('dead');
    expect(rig.clientLog.join('')).toMatch(/received ENGINE_CORE_DEAD sentinel/);
    expect((await rig.engine.exited).code).toBe(1);
    expect(rig.engine.output()).toMatch(/ENGINE_CORE_DEAD/);
  });

  it('exit: a vanished engine is detected promptly', async () => {
    const rig = await startRig({ args: ['--mock-fault', 'exit', '--mock-fault-after-tokens', '2', '--mock-token-delay-ms', '5'] });
    const t0 = Date.now();
    const err = await failure(rig.client.submit(request({ maxTokens: 100 })));
    expect(err.kind).toBe('dead');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(rig.clientLog.join('')).toMatch(/engine disconnected/);
    expect((await rig.engine.exited).signal).toBe('SIGKILL');
  });

  it('garbage x3: repeated undecodable output fails the request with a decode error', async () => {
    const rig = await startRig({ args: ['--mock-fault', 'garbage', '--mock-token-delay-ms', '20'] });
    const err = await failure(rig.client.submit(request({ maxTokens: 100 })));
    expect(err.kind).toBe('decode');
    expect(rig.clientLog.join('')).toMatch(/undecodable repeatedly/);
  });

  it('garbage x2: the client survives and the request completes', async () => {
    const rig = await startRig({ args: ['--mock-fault', 'garbage', '--mock-garbage-count', '2', '--mock-token-delay-ms', '5'] });
    const r = await collect(rig.client.submit(request({ maxTokens: 6 })));
    expect(r.finish).toBe('length');
    expect(rig.client.alive).toBe(true);
  });

  it('silent: the silence watchdog declares the engine dead', async () => {
    const rig = await startRig({ silenceTimeoutMs: 500, args: ['--mock-fault', 'silent', '--mock-token-delay-ms', '5'] });
    const err = await failure(rig.client.submit(request({ maxTokens: 100 })));
    expect(err.kind).toBe('dead');
    expect(rig.clientLog.join('')).toMatch(/no engine output for 0.5s/);
    expect(rig.engine.running).toBe(true);
  });

  it('fault on request: fires only for the matching request id', async () => {
    const rig = await startRig({ args: ['--mock-fault', 'dead', '--mock-fault-on-request', 'boom'] });
    const ok = await collect(rig.client.submit(request({ maxTokens: 2 })));
    expect(ok.finish).toBe('length');
    const err = await failure(rig.client.submit(request({ maxTokens: 100 }, { requestId: 'boom-1' })));
    expect(err.kind).toBe('dead');
  });

  it('SIGTERM: in-flight requests end as abort and the engine exits 0', async () => {
    const rig = await startRig({ args: ['--mock-token-delay-ms', '20'] });
    const stream = rig.client.submit(request({ maxTokens: 4000 }));
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    rig.engine.child.kill('SIGTERM');
    let last: EngineChunk | undefined;
    for (;;) {
      const n = await it.next();
      if (n.done) break;
      last = n.value;
    }
    expect(last?.finish).toBe('abort');
    expect((await rig.engine.exited).code).toBe(0);
  });
});
