/**
 * Capability-aware worker selection: in a pool that mixes vLLM and TokenSpeed workers for one
 * model, a request only vLLM can serve (more than one ranked logprob candidate, prompt logprobs)
 * goes to a vLLM worker whatever the policy would have chosen; with no capable worker the pick
 * still succeeds so the pipeline answers its 400.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultGatewayConfig, workersConfigOf } from '../../src/gateway/config.js';
import type { RuntimeType } from '../../src/engine/types.js';
import { runtimeServes } from '../../src/workers/capabilities.js';
import { WorkerManager } from '../../src/workers/manager.js';
import type { PolicyName } from '../../src/workers/types.js';
import { InMemoryTokenizerRegistry } from '../../src/workers/tokenizer-registry.js';
import { defaultSpec } from '../../src/workers/types.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const TS_URL = 'ipc:///tmp/smg-cap/ts';
const VLLM_URL = 'ipc:///tmp/smg-cap/vllm';

async function tick(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}

async function pool(policy: PolicyName, workers: Array<[string, RuntimeType]>) {
  const fake = new FakeConnector();
  const cfg = { ...defaultGatewayConfig(), modelPath: 'm', policy };
  const mgr = new WorkerManager({
    config: workersConfigOf(cfg),
    logger: captureLogger().logger,
    connect: fake.connect,
    tokenizers: new InMemoryTokenizerRegistry(),
  });
  const ids: Record<string, string> = {};
  for (const [url, runtime] of workers) {
    const r = mgr.submitAdd({ ...defaultSpec(url), runtimeType: runtime });
    if (!r.ok) throw new Error('add refused');
    ids[url] = r.id;
    await tick();
    fake.pendingFor(url)!.complete();
    await tick();
  }
  return { mgr, ids };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('runtimeServes', () => {
  it.each([
    ['vllm', { topLogprobs: 20 }, true],
    ['vllm', { promptLogprobs: true }, true],
    ['tokenspeed', { topLogprobs: 1 }, true],
    ['tokenspeed', { topLogprobs: 2 }, false],
    ['tokenspeed', { promptLogprobs: true }, false],
    ['tokenspeed', {}, true],
  ] as const)('%s serves %j: %s', (runtime, needs, ok) => {
    expect(runtimeServes(runtime, needs)).toBe(ok);
  });
});

describe.each(['cache_aware', 'round_robin', 'random', 'power_of_two', 'least_load'] as const)('mixed pool under %s', (policy) => {
  it('top_logprobs > 1 always lands on the vLLM worker; plain requests may go anywhere', async () => {
    // The TokenSpeed worker registers first, so order-biased policies would favour it.
    const { mgr, ids } = await pool(policy, [
      [TS_URL, 'tokenspeed'],
      [VLLM_URL, 'vllm'],
    ]);
    const prompt = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];
    for (let i = 0; i < 20; i++) {
      expect(mgr.pickWorker('m', prompt, { topLogprobs: 5 })?.id).toBe(ids[VLLM_URL]);
      expect(mgr.pickWorker('m', prompt, { promptLogprobs: true })?.id).toBe(ids[VLLM_URL]);
    }
    const plain = new Set<string>();
    for (let i = 0; i < 40; i++) plain.add(mgr.pickWorker('m', [i, i + 1, i + 2], { topLogprobs: 1 })!.id);
    if (policy === 'round_robin') expect(plain).toEqual(new Set([ids[TS_URL], ids[VLLM_URL]]));
  });
});

describe('no capable worker', () => {
  it('a TokenSpeed-only pool still picks its worker (the pipeline then answers the 400)', async () => {
    const { mgr, ids } = await pool('cache_aware', [[TS_URL, 'tokenspeed']]);
    expect(mgr.pickWorker('m', [1, 2, 3], { topLogprobs: 5 })?.id).toBe(ids[TS_URL]);
  });

  it('an unknown model is still no worker at all', async () => {
    const { mgr } = await pool('cache_aware', [[VLLM_URL, 'vllm']]);
    expect(mgr.pickWorker('other', [1], { topLogprobs: 5 })).toBeNull();
  });
});
