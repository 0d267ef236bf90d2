/**
 * Why a worker does not serve, as /readiness and GET /workers say it (the handshake address it
 * waits on and since when, a refused socket directory, a failed tokenizer, the startup timeout),
 * and the served model names a worker answers to.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultGatewayConfig, workersConfigOf, type GatewayConfig } from '../../src/gateway/config.js';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { IpcPathError } from '../../src/engine/ipc-path.js';
import { WorkerManager, type WorkerMetricsSink } from '../../src/workers/manager.js';
import { InMemoryTokenizerRegistry, type TokenizerLoader } from '../../src/workers/tokenizer-registry.js';
import { defaultSpec } from '../../src/workers/types.js';
import { decodeWorkerSpec } from '../../src/workers/worker-spec.js';
import { workerEntry } from '../../src/workers/worker-view.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-reasons/engine-a';
const URL_B = 'ipc:///tmp/smg-reasons/engine-b';
const HS_A = `tcp://127.0.0.1:${handshakePortFor(URL_A)}`;

function setup(over: Partial<GatewayConfig> = {}, loadTokenizer: TokenizerLoader | null = null) {
  const cap = captureLogger();
  const fake = new FakeConnector();
  const tokenizers = new InMemoryTokenizerRegistry();
  const errors: string[] = [];
  const metrics: WorkerMetricsSink = { healthCheck() {}, selected() {}, removed() {}, workerError: (_w, t) => errors.push(t) };
  const cfg = { ...defaultGatewayConfig(), modelPath: '/models/qwen3', ...over };
  const mgr = new WorkerManager({ config: workersConfigOf(cfg), logger: cap.logger, connect: fake.connect, tokenizers, loadTokenizer, metrics });
  return { mgr, fake, cap, tokenizers, errors };
}

const tick = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('not-ready reasons', () => {
  it('a pending worker waits for its handshake on the derived address, since the bind', async () => {
    const { mgr, fake } = setup();
    vi.setSystemTime(new Date('2026-12-01T10:00:00.000Z'));
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    vi.setSystemTime(new Date('2026-12-01T10:00:02.000Z'));
    fake.pendingFor(URL_A)!.bound();
    const r = mgr.readiness();
    expect(r).toEqual({
      ready: false,
      reason: 'insufficient healthy workers',
      workers: [
        {
          id: mgr.list()[0].id,
          url: URL_A,
          status: 'pending',
          reason: `waiting for handshake on ${HS_A} since 2026-12-01T10:00:02.000Z`,
          last_error: null,
        },
      ],
    });
    expect(workerEntry(mgr.list()[0])).toMatchObject({ status: 'pending', reason: `waiting for handshake on ${HS_A} since 2026-12-01T10:00:02.000Z` });
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(workerEntry(mgr.list()[0])).toMatchObject({ status: 'ready', reason: null, last_error: null });
    // Ready, but its tokenizer has not loaded: /readiness names that too.
    expect(mgr.readiness()).toMatchObject({
      reason: 'tokenizer not yet registered',
      workers: [{ url: URL_A, status: 'ready', reason: 'tokenizer not yet registered (loading from /models/qwen3)' }],
    });
  });

  it('a refused socket directory is the reason until a later attempt gets past the path checks', async () => {
    const { mgr, fake, errors } = setup({ healthCheckIntervalSecs: 10 });
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    const refusal = 'ipc socket dir /tmp/smg-reasons is owned by uid 0 (expected 1000); refusing to bind unauthenticated ZMQ sockets in a directory owned by another user';
    fake.pendingFor(URL_A)!.failWith(new IpcPathError(refusal));
    await tick();
    const w = mgr.list()[0];
    expect(w.notReadyReason()).toBe(`socket directory refused: ${refusal}`);
    expect(workerEntry(w).last_error).toEqual({ message: refusal, at: expect.any(String) });
    expect(errors).toEqual(['socket_refused']);
    // The next probe starts another attempt; the refusal still stands while it has not bound.
    await tick(10_000);
    expect(fake.pendingFor(URL_A)).toBeDefined();
    expect(w.notReadyReason()).toBe(`socket directory refused: ${refusal}`);
    fake.pendingFor(URL_A)!.bound();
    expect(w.notReadyReason()).toMatch(new RegExp(`^waiting for handshake on ${HS_A} since `));
  });

  it('a failed handshake is the reason (and the last error) until the next attempt', async () => {
    const { mgr, fake, errors } = setup();
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    fake.pendingFor(URL_A)!.fail('startup handshake timed out while waiting for HELLO after 600s');
    await tick();
    expect(mgr.list()[0].notReadyReason()).toBe('not connected: startup handshake timed out while waiting for HELLO after 600s');
    expect(errors).toEqual(['handshake_failed']);
    expect(mgr.unavailableReason('/models/qwen3')).toBe(
      `worker ${URL_A} is pending: not connected: startup handshake timed out while waiting for HELLO after 600s`,
    );
  });

  it('a tokenizer that cannot load is reported as failed, in /readiness and on its workers', async () => {
    const loader: TokenizerLoader = () => Promise.reject(new Error('model /models/qwen3 not found on the hub (offline)'));
    const { mgr, fake } = setup({}, loader);
    fake.auto = true;
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    await tick();
    const r = mgr.readiness();
    expect(r.ready).toBe(false);
    if (r.ready) return;
    expect(r.reason).toBe('tokenizer failed: model /models/qwen3 not found on the hub (offline)');
    expect(r.workers[0]).toMatchObject({ status: 'ready', reason: 'tokenizer failed: model /models/qwen3 not found on the hub (offline)' });
    expect(mgr.tokenizerFailure('/models/qwen3')).toBe('model /models/qwen3 not found on the hub (offline)');
  });

  it('--worker-startup-timeout-secs fails a worker still pending after it; pending workers are probed every --worker-startup-check-interval', async () => {
    const { mgr, fake } = setup({ workerStartupTimeoutSecs: 30, workerStartupCheckInterval: 10, healthCheckIntervalSecs: 60 });
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    fake.pendingFor(URL_A)!.fail('no HELLO');
    await tick();
    const before = fake.calls.length;
    await tick(10_000);
    expect(fake.calls.length).toBe(before + 1);
    fake.pendingFor(URL_A)!.fail('no HELLO');
    await tick(20_000);
    const w = mgr.list()[0];
    expect(w.status).toBe('failed');
    expect(w.notReadyReason()).toBe('failed: no handshake within 30 s of registration (--worker-startup-timeout-secs)');
  });
});

describe('served model names', () => {
  it('--served-model-name: the first is the id, every name resolves to it, the tokenizer still loads from the model path', async () => {
    const loads: string[] = [];
    const { mgr } = setup({ servedModelNames: ['Qwen/Qwen3-8B', 'qwen3'] }, async (src) => {
      loads.push(`${src.modelId}<-${src.source}`);
      return {};
    });
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    expect(mgr.modelIds()).toEqual(['Qwen/Qwen3-8B']);
    expect(mgr.resolveModel('qwen3')).toBe('Qwen/Qwen3-8B');
    expect(mgr.resolveModel('Qwen/Qwen3-8B')).toBe('Qwen/Qwen3-8B');
    expect(mgr.resolveModel('/models/qwen3')).toBeNull();
    expect(loads).toEqual(['Qwen/Qwen3-8B<-/models/qwen3']);
    expect(workerEntry(mgr.list()[0])).toMatchObject({ model_id: 'Qwen/Qwen3-8B', served_model_names: ['Qwen/Qwen3-8B', 'qwen3'] });
    const [m] = mgr.models();
    expect(m).toMatchObject({ id: 'Qwen/Qwen3-8B', names: ['Qwen/Qwen3-8B', 'qwen3'], maxModelLen: null, root: '/models/qwen3' });
  });

  it('served_model_name on POST /workers (one name or a list) beats the gateway flag', async () => {
    const one = decodeWorkerSpec({ url: URL_A, served_model_name: 'llama' });
    const many = decodeWorkerSpec({ url: URL_B, served_model_name: ['meta-llama/Llama-3.1-8B-Instruct', 'llama8b'] });
    expect(one.ok && one.value.servedModelName).toEqual(['llama']);
    expect(many.ok && many.value.servedModelName).toEqual(['meta-llama/Llama-3.1-8B-Instruct', 'llama8b']);
    const bad = decodeWorkerSpec({ url: URL_A, served_model_name: [1] });
    expect(bad).toMatchObject({ ok: false, status: 422 });
    if (!one.ok || !many.ok) return;
    const { mgr } = setup({ servedModelNames: ['gateway-name'] });
    mgr.submitAdd({ ...one.value, runtimeType: 'vllm' });
    mgr.submitAdd({ ...many.value, runtimeType: 'vllm' });
    mgr.submitAdd({ ...defaultSpec('ipc:///tmp/smg-reasons/engine-c'), runtimeType: 'vllm' });
    await tick();
    expect(mgr.modelIds()).toEqual(['llama', 'meta-llama/Llama-3.1-8B-Instruct', 'gateway-name']);
    expect(mgr.resolveModel('llama8b')).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(workerEntry(mgr.list()[0])).toMatchObject({ served_model_name: ['llama'] });
  });
});

describe('log lines', () => {
  it('say the worker URL once: the worker= context is dropped when the message names it', async () => {
    const { mgr, fake, cap } = setup();
    mgr.addStartupWorkers([URL_A], 'vllm', null);
    await tick();
    fake.pendingFor(URL_A)!.complete();
    await tick();
    const registered = cap.find('Registered ZMQ worker');
    expect(registered).toHaveLength(1);
    expect(registered[0].split(URL_A)).toHaveLength(2);
    const ready = cap.find('ZMQ handshake completed');
    expect(ready[0].split(URL_A)).toHaveLength(2);
    // Context the message does not name is still printed.
    cap.logger.child({ worker: URL_A }).info('probe scheduled');
    expect(cap.find('probe scheduled')[0]).toContain(`worker=${URL_A}`);
  });
});
