/**
 * Half-dead vLLM engines: the process lives, its output socket too, but its input side is gone.
 * - A healthy but slow engine is asked too, answers, and nothing happens to it.
 * - The input thread stops reading (`--mock-fault stall-input`): only the wire-level probe can
 *   tell. A request waits without output, the gateway asks `get_supported_tasks`, gets no answer
 *   within 10 s and takes the worker out of `ready` with its own reason (real gateway process).
 * - The input thread dies on an ADD it cannot decode and closes its socket (wire-vllm §3.9): the
 *   input disconnect tells, within a second. The gateway never sends such an ADD, so a worker
 *   registry runs in-process with a dialect that poisons one request id; engine and sockets are
 *   real, and the death event the supervisor would get is checked too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineError } from '../../src/engine/client-types.js';
import { vllmDialect } from '../../src/engine/dialects/vllm/index.js';
import { connectEngineClient } from '../../src/engine/engine-client.js';
import { ENGINE_INPUT_DISCONNECTED_TEXT } from '../../src/engine/error-texts.js';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import type { Dialect } from '../../src/engine/types.js';
import { VLLM_INPUT_PROBE } from '../../src/engine/vllm-input-probe.js';
import { defaultGatewayConfig, workersConfigOf } from '../../src/gateway/config.js';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { silentLogger } from '../../src/util/logger.js';
import type { ConnectEngineFn } from '../../src/workers/connect.js';
import type { EngineDeathEvent } from '../../src/workers/engine-deaths.js';
import { WorkerManager } from '../../src/workers/manager.js';
import { InMemoryTokenizerRegistry } from '../../src/workers/tokenizer-registry.js';
import { defaultSpec } from '../../src/workers/types.js';
import { samplingSpec } from '../support/sampling.js';
import { type Gateway, startGateway, startRanks, waitReady, workers } from './support/grouped-rig.js';
import { TINY_MODEL, waitFor } from './support/proc.js';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

async function statusOf(gw: Gateway): Promise<string | undefined> {
  return (await workers(gw))[0]?.status;
}

describe('a half-dead vLLM engine', () => {
  it('input thread stalled: no reply to get_supported_tasks within 10 s takes the worker out of ready', async () => {
    const gw = await startGateway();
    stops.push(() => gw.stop());
    const engine = startRanks({ port: gw.handshakePort, size: 1, args: ['--mock-fault', 'stall-input', '--mock-fault-after-tokens', '0'] });
    stops.push(() => engine.stop(2000));
    await waitReady(gw, [engine]);
    await engine.waitForLine(/fault 'stall-input' fired/);

    const t0 = performance.now();
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'anyone there?' }], max_tokens: 4 }),
    });
    const body = await res.text();
    const ms = performance.now() - t0;
    console.log(`[measure] stalled input thread → request failed after ${ms.toFixed(0)} ms (2 s quiet + 10 s for the answer)`);
    expect(res.status, body).toBe(500);
    expect(body).toContain('engine input thread unresponsive: no reply to get_supported_tasks within 10s');
    expect(ms).toBeGreaterThanOrEqual(11_500);
    expect(gw.proc.output()).toContain(
      'engine rank 0 did not answer get_supported_tasks within 10s while 1 request(s) waited',
    );
    expect(gw.proc.output()).toContain(
      `ZMQ engine for ${gw.workerUrl} died (engine input thread unresponsive: no reply to get_supported_tasks within 10s); evicting the dead client and rebinding now`,
    );
    expect(await statusOf(gw)).not.toBe('ready');
    expect((await fetch(`${gw.base}/readiness`)).status).toBe(503);
    // Half-dead indeed: the process is still up; killing it is the supervisor's part.
    expect(engine.running).toBe(true);
  }, 180_000);

  it('a healthy engine slower than the probe answers get_supported_tasks and its request completes', async () => {
    const gw = await startGateway();
    stops.push(() => gw.stop());
    // 3 s per token: longer quiet spells than the 2 s after which the gateway asks.
    const engine = startRanks({ port: gw.handshakePort, size: 1, args: ['--mock-token-delay-ms', '3000'] });
    stops.push(() => engine.stop(2000));
    await waitReady(gw, [engine]);
    const res = await fetch(`${gw.base}/v1/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: TINY_MODEL, prompt: 'slow', max_tokens: 3 }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { choices: { finish_reason: string }[] };
    expect(body.choices[0].finish_reason).toBe('length');
    expect(engine.lines.filter((l) => l.includes('utility: get_supported_tasks call_id=')).length).toBeGreaterThanOrEqual(1);
    expect(gw.proc.output()).not.toContain('did not answer');
    expect(await statusOf(gw)).toBe('ready');
  }, 180_000);

  it('input thread killed by an undecodable ADD: the input disconnect takes the worker out of ready at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-half-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const url = `ipc://${dir}/w0`;
    // An ADD payload of one element: msgspec fails to decode it, which kills vLLM's input thread.
    const POISON = 'poison';
    const poisoned: Dialect = {
      ...vllmDialect,
      encodeAdd: (req) => (req.requestId === POISON ? [Buffer.from([0x00]), Buffer.from([0x91, 0xa1, 0x78])] : vllmDialect.encodeAdd(req)),
    };
    const connect: ConnectEngineFn = (o) =>
      connectEngineClient({
        url: o.url,
        engineCount: o.engineCount,
        dialect: poisoned,
        inputProbe: VLLM_INPUT_PROBE,
        stageTimeoutMs: o.stageTimeoutMs,
        logger: o.logger,
        signal: o.signal,
      });
    const mgr = new WorkerManager({
      config: workersConfigOf({ ...defaultGatewayConfig(), modelPath: 'mock-model', disableTokenizerAutoload: true }),
      logger: silentLogger(),
      connect,
      tokenizers: new InMemoryTokenizerRegistry(),
    });
    stops.push(() => mgr.close());
    const deaths: EngineDeathEvent[] = [];
    mgr.onEngineDeath((ev) => deaths.push(ev));
    const added = mgr.submitAdd({ ...defaultSpec(url), runtimeType: 'vllm' });
    if (!added.ok) throw new Error('worker not added');
    const engine: MockEngineProcess = startRanks({ port: handshakePortFor(url), size: 1 });
    stops.push(() => engine.stop(2000));
    const worker = await waitFor('worker ready', () => {
      const w = mgr.get(added.id);
      return w?.status === 'ready' ? w : undefined;
    });

    const req = (id: string) => ({
      requestId: id,
      promptTokenIds: [1, 2, 3],
      sampling: samplingSpec({ maxTokens: 2 }),
      arrivalTime: Date.now() / 1000,
      cacheSalt: null,
      dataParallelRank: null,
      priority: 0,
    });
    const t0 = performance.now();
    const stream = worker.acquireClient().submit(req(POISON));
    let error: EngineError | null = null;
    try {
      for await (const _ of stream) void _;
    } catch (err) {
      error = err as EngineError;
    }
    const ms = performance.now() - t0;
    console.log(`[measure] undecodable ADD → input disconnect seen after ${ms.toFixed(0)} ms`);
    expect(error).toMatchObject({ kind: 'dead', message: ENGINE_INPUT_DISCONNECTED_TEXT });
    expect(ms).toBeLessThan(2000);
    await engine.waitForLine(/input thread died/);
    expect(worker.status).not.toBe('ready');
    expect(deaths).toEqual([{ workerId: added.id, url, reason: ENGINE_INPUT_DISCONNECTED_TEXT, kind: 'dead', cause: 'disconnect' }]);
    expect(engine.running).toBe(true);
  }, 180_000);
});
