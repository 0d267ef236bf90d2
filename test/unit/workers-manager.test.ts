import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultGatewayConfig, workersConfigOf, type GatewayConfig } from '../../src/gateway/config.js';
import { WorkerManager } from '../../src/workers/manager.js';
import type { EngineError } from '../../src/engine/client-types.js';
import { EngineDeathError } from '../../src/engine/engine-death.js';
import type { ConnectEngineFn } from '../../src/workers/connect.js';
import type { EngineDeathEvent } from '../../src/workers/engine-deaths.js';
import { FakeConnector, FakeEngineClient } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';
import { InMemoryTokenizerRegistry } from '../../src/workers/tokenizer-registry.js';
import { defaultSpec } from '../../src/workers/types.js';

const URL_A = 'ipc:///tmp/smg-test/engine-a';

/** A fake client that dies with a given error, as the real client does (with a death cause). */
class CausedClient extends FakeEngineClient {
  private readonly listeners: ((err: EngineError) => void)[] = [];
  override onDead(listener: (err: EngineError) => void): void {
    this.listeners.push(listener);
  }
  dieWith(err: EngineError): void {
    this.alive = false;
    for (const l of this.listeners) l(err);
  }
}
const URL_B = 'ipc:///tmp/smg-test/engine-b';

function setup(over: Partial<GatewayConfig> = {}) {
  const cap = captureLogger();
  const fake = new FakeConnector();
  const tokenizers = new InMemoryTokenizerRegistry();
  const cfg = { ...defaultGatewayConfig(), modelPath: 'm', ...over };
  const mgr = new WorkerManager({ config: workersConfigOf(cfg), logger: cap.logger, connect: fake.connect, tokenizers });
  return { mgr, fake, cap, tokenizers };
}

/** Lets queued jobs, the immediate first probe and the driver's microtasks run. */
async function tick(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

async function addReady(mgr: WorkerManager, fake: FakeConnector, url = URL_A) {
  const r = mgr.submitAdd({ ...defaultSpec(url), runtimeType: 'vllm' });
  if (!r.ok) throw new Error('add refused');
  await tick();
  const client = fake.pendingFor(url)!.complete();
  await tick();
  return { id: r.id, worker: mgr.get(r.id)!, client };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('registration and promotion', () => {
  it('starts pending, binds at once, and is ready the moment the handshake completes', async () => {
    const { mgr, fake } = setup();
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'tokenspeed', dpSize: 2 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(mgr.list()).toHaveLength(0); // still registering: not listed
    expect(mgr.registeringSpec(r.id)?.url).toBe(URL_A);
    await tick();
    const w = mgr.get(r.id)!;
    expect(w.status).toBe('pending');
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ url: URL_A, runtime: 'tokenspeed', engineCount: 2, stageTimeoutMs: 600_000, silenceTimeoutMs: 300_000 });
    expect(fake.calls[0].handshakeAddress).toBeUndefined();
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(w.status).toBe('ready');
    expect(mgr.pickWorker('m')).toBe(w);
  });

  it('startup workers: runtime pinned by --backend, dp_size from --zmq-engine-count, rejections logged', async () => {
    const { mgr, fake, cap } = setup();
    mgr.addStartupWorkers([URL_A, URL_A, 'grpc://127.0.0.1:8000'], 'tokenspeed', 2);
    await tick();
    expect(mgr.list()).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ runtime: 'tokenspeed', engineCount: 2 });
    expect(cap.find('Failed job: type=AddWorker')).toHaveLength(2);
    expect(cap.find(
      `Failed job: type=AddWorker, worker=${URL_A}, error=Workflow failed at step create_local_worker: Step failed: create_worker - Worker ${URL_A} already exists`,
    )).toHaveLength(1);
  });

  it('--backend sglang leaves the runtime unset → vLLM with a warning', async () => {
    const { mgr, fake, cap } = setup();
    mgr.addStartupWorkers([URL_A], 'sglang', null);
    await tick();
    expect(fake.calls[0].runtime).toBe('vllm');
    expect(cap.find('runtime_type unspecified for ZMQ worker')).toHaveLength(1);
  });

  it('a failed job is visible as job_status', async () => {
    const { mgr } = setup({ modelPath: null });
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    expect(mgr.jobs.get(r.id)?.status).toBe('pending');
    await tick();
    expect(mgr.get(r.id)).toBeUndefined();
    expect(mgr.jobs.get(r.id)).toMatchObject({ job_type: 'AddWorker', status: 'failed', worker_url: URL_A });
    expect(mgr.jobs.get(r.id)?.message).toContain('has no model identity');
  });

  it('a handshake failure is logged and retried on the next probe', async () => {
    const { mgr, fake, cap } = setup();
    mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    await tick();
    fake.pendingFor(URL_A)!.fail('startup handshake timed out while waiting for HELLO after 600s');
    await tick();
    expect(cap.find(
      `ZMQ backend handshake failed for ${URL_A}: startup handshake timed out while waiting for HELLO after 600s; will retry on the next health probe`,
    )).toHaveLength(1);
    expect(fake.calls).toHaveLength(1);
    await tick(60_000);
    expect(fake.calls).toHaveLength(2);
  });

  it('health checks stay on for ZMQ workers with --disable-health-check', async () => {
    const { mgr, fake, cap } = setup({ disableHealthCheck: true });
    mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    await tick();
    expect(cap.find('Ignoring disabled health checks for ZMQ worker')).toHaveLength(1);
    expect(fake.calls).toHaveLength(1);
  });
});

describe('engine death and reconnect', () => {
  it('on onDead: leaves ready, evicts and rebinds at once, and is ready the moment the engine is back', async () => {
    const { mgr, fake, cap } = setup();
    const { id, worker, client } = await addReady(mgr, fake);
    const deaths: EngineDeathEvent[] = [];
    mgr.onEngineDeath((ev) => deaths.push(ev));
    client.kill('engine disconnected: an engine closed its input connection (its process exited or its input thread died)');
    expect(worker.status).toBe('not_ready');
    expect(mgr.pickWorker('m')).toBeNull();
    expect(cap.find(
      `ZMQ engine for ${URL_A} died (engine disconnected: an engine closed its input connection (its process exited or its input thread died)); evicting the dead client and rebinding now`,
    )).toHaveLength(1);
    expect(deaths).toEqual([
      {
        workerId: id,
        url: URL_A,
        reason: 'engine disconnected: an engine closed its input connection (its process exited or its input thread died)',
        kind: 'dead',
        cause: 'external', // the fake's EngineError carries no cause; the real client's does
      },
    ]);
    // No probe interval in between: the old client is closed and the new driver binds now.
    await tick();
    expect(client.closed).toBe(true);
    expect(fake.calls).toHaveLength(2);
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(worker.status).toBe('ready');
    // The prompt re-probe after the death finds the new client alive; nothing to evict.
    await tick(1000);
    expect(cap.find('is no longer alive')).toHaveLength(0);
    expect(worker.status).toBe('ready');
    expect(fake.calls).toHaveLength(2);
  });

  it('a death with a cause (the real client) reaches the death listeners with it, until unsubscribed', async () => {
    const clients: CausedClient[] = [];
    const connect: ConnectEngineFn = async (opts) => {
      const c = new CausedClient(opts.url, opts.runtime);
      clients.push(c);
      return c;
    };
    const cap = captureLogger();
    const mgr = new WorkerManager({
      config: workersConfigOf({ ...defaultGatewayConfig(), modelPath: 'm' }),
      logger: cap.logger,
      connect,
      tokenizers: new InMemoryTokenizerRegistry(),
    });
    mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    await tick();
    const deaths: EngineDeathEvent[] = [];
    const unsubscribe = mgr.onEngineDeath((ev) => deaths.push(ev));
    const text = 'engine input thread unresponsive: no reply to get_supported_tasks within 10s';
    clients[0].dieWith(new EngineDeathError('dead', text, 'input_unresponsive'));
    expect(deaths.map((d) => [d.url, d.cause, d.reason])).toEqual([[URL_A, 'input_unresponsive', text]]);
    await tick();
    expect(clients).toHaveLength(2); // rebound at once
    unsubscribe();
    clients[1].dieWith(new EngineDeathError('dead', 'engine core reported fatal failure', 'sentinel'));
    expect(deaths).toHaveLength(1);
    await mgr.close();
  });

  it('a worker that drains when its engine dies is not rebound', async () => {
    const { mgr, fake, cap } = setup({ drainSettleSecs: 5 });
    const { id, worker, client } = await addReady(mgr, fake);
    worker.trackRequest(); // keeps the drain going
    mgr.submitRemove(id);
    await tick();
    expect(worker.status).toBe('draining');
    client.kill();
    await tick();
    expect(cap.find('while the worker drains; not rebinding')).toHaveLength(1);
    expect(fake.calls).toHaveLength(1);
  });

  it('without a dead signal the probes still evict and the thresholds apply', async () => {
    const { mgr, fake } = setup();
    const { worker, client } = await addReady(mgr, fake);
    client.alive = false; // died silently: no onDead
    await tick(60_000); // probe: evict (failure 1)
    expect(worker.status).toBe('ready');
    await tick(1000); // prompt re-probe: kick driver (failure 2)
    expect(fake.calls).toHaveLength(2);
    await tick(60_000); // failure 3
    expect(worker.status).toBe('not_ready');
    for (let i = 0; i < 6; i++) await tick(60_000);
    expect(worker.status).toBe('failed');
    // Failed leaves the schedule, but a late handshake still promotes it.
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(worker.status).toBe('ready');
  });

  it('pending → failed after 30 probes; --remove-unhealthy-workers removes it', async () => {
    const { mgr, fake, cap } = setup({ removeUnhealthyWorkers: true });
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    await tick();
    for (let i = 0; i < 29; i++) await tick(60_000);
    expect(cap.find('Removing failed worker from registry')).toHaveLength(1);
    await tick(100);
    expect(mgr.get(r.id)).toBeUndefined();
    expect(fake.pending).toHaveLength(0); // the handshake was aborted
  });
});

describe('removal and updates', () => {
  it('DELETE during a handshake aborts it (binds released) and removes the worker', async () => {
    const { mgr, fake } = setup();
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    await tick();
    const hs = fake.pendingFor(URL_A)!;
    expect(mgr.submitRemove(r.id)).toBe(true);
    await tick();
    expect(hs.aborted).toBe(true);
    expect(mgr.get(r.id)).toBeUndefined();
    // The URL is free again.
    expect(mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' }).ok).toBe(true);
  });

  it('a handshake that completes after removal is closed, never promoted', async () => {
    const { mgr, fake } = setup();
    fake.honorAbort = false;
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    await tick();
    const hs = fake.pendingFor(URL_A)!;
    mgr.submitRemove(r.id);
    await tick(5000);
    expect(mgr.get(r.id)).toBeUndefined();
    const late = hs.complete();
    await tick();
    expect(late.closed).toBe(true);
    expect(mgr.list()).toHaveLength(0);
  });

  it('DELETE of a ready worker drains until its in-flight requests finish', async () => {
    const { mgr, fake } = setup();
    const { id, worker, client } = await addReady(mgr, fake);
    const release = worker.trackRequest();
    mgr.submitRemove(id);
    await tick(500);
    expect(worker.status).toBe('draining');
    expect(mgr.pickWorker('m')).toBeNull();
    expect(mgr.get(id)).toBe(worker);
    release();
    await tick(100);
    expect(mgr.get(id)).toBeUndefined();
    expect(client.closed).toBe(true);
  });

  it('PATCH keeps the live connection and merges labels', async () => {
    const { mgr, fake } = setup();
    const { id, worker, client } = await addReady(mgr, fake);
    worker.identity.spec.labels = { a: '1' };
    mgr.submitPatch(id, { priority: 7, cost: null, labels: { b: '2' }, apiKey: null, health: null });
    await tick();
    expect(worker.identity.spec.priority).toBe(7);
    expect(worker.identity.spec.labels).toEqual({ a: '1', b: '2' });
    expect(worker.status).toBe('ready');
    expect(worker.acquireClient()).toBe(client);
    expect(fake.calls).toHaveLength(1);
  });

  it('PUT with the same transport keeps the connection; a new runtime reconnects and ignores the old handshake', async () => {
    const { mgr, fake } = setup();
    const { id, worker, client } = await addReady(mgr, fake);
    mgr.submitReplace(id, { ...defaultSpec(URL_A), runtimeType: 'vllm', priority: 9 });
    await tick();
    expect(worker.acquireClient()).toBe(client);
    mgr.submitReplace(id, { ...defaultSpec(URL_A), runtimeType: 'tokenspeed' });
    await tick();
    expect(client.closed).toBe(true);
    expect(worker.status).toBe('pending');
    expect(fake.calls.at(-1)?.runtime).toBe('tokenspeed');
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(worker.status).toBe('ready');
  });

  it('a handshake of a replaced transport that completes late is ignored (stale revision)', async () => {
    const { mgr, fake } = setup();
    fake.honorAbort = false;
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    await tick();
    const old = fake.pendingFor(URL_A)!;
    mgr.submitReplace(r.id, { ...defaultSpec(URL_A), runtimeType: 'tokenspeed' });
    await tick();
    const w = mgr.get(r.id)!;
    const stale = old.complete();
    await tick();
    expect(stale.closed).toBe(true);
    expect(w.status).toBe('pending');
    expect(w.hasLiveClient).toBe(false);
    fake.pendingFor(URL_A)!.complete();
    await tick();
    expect(w.status).toBe('ready');
    expect(w.runtime).toBe('tokenspeed');
  });

  it('a request on a worker without a connection fails fast and kicks the driver', async () => {
    const { mgr, fake } = setup();
    const r = mgr.submitAdd({ ...defaultSpec(URL_A), runtimeType: 'vllm' });
    if (!r.ok) throw new Error();
    await tick();
    const w = mgr.get(r.id)!;
    expect(() => w.acquireClient()).toThrow(
      `Connection failed for worker ${URL_A}: ZMQ backend handshake has not completed yet`,
    );
    expect(fake.calls).toHaveLength(1); // already connecting: no second driver
  });
});

describe('readiness', () => {
  it('insufficient workers → tokenizer gate → ready', async () => {
    const { mgr, fake, tokenizers } = setup();
    expect(mgr.readiness()).toEqual({ ready: false, reason: 'insufficient healthy workers', workers: [] });
    await addReady(mgr, fake);
    expect(mgr.readiness()).toMatchObject({ ready: false, reason: 'tokenizer not yet registered' });
    tokenizers.register('m', {});
    expect(mgr.readiness()).toEqual({ ready: true, healthyWorkers: 1, totalWorkers: 1 });
    mgr.submitAdd({ ...defaultSpec(URL_B), runtimeType: 'vllm' });
    await tick();
    expect(mgr.readiness()).toEqual({ ready: true, healthyWorkers: 1, totalWorkers: 2 });
  });

  it('--disable-tokenizer-autoload skips the tokenizer gate', async () => {
    const { mgr, fake } = setup({ disableTokenizerAutoload: true });
    await addReady(mgr, fake);
    expect(mgr.readiness()).toEqual({ ready: true, healthyWorkers: 1, totalWorkers: 1 });
  });

  it('close() aborts handshakes and closes clients', async () => {
    const { mgr, fake } = setup();
    const { client } = await addReady(mgr, fake);
    mgr.submitAdd({ ...defaultSpec(URL_B), runtimeType: 'vllm' });
    await tick();
    const hs = fake.pendingFor(URL_B)!;
    await mgr.close();
    expect(client.closed).toBe(true);
    expect(hs.aborted).toBe(true);
  });
});
