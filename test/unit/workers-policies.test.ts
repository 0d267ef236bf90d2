import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/util/logger.js';
import { createPolicy } from '../../src/workers/policies/index.js';
import { blockChain } from '../../src/workers/policies/prefix-index.js';
import { WorkerSelector } from '../../src/workers/selector.js';
import { captureLogger } from '../support/log-capture.js';
import { W } from '../support/routable-worker.js';
import type { PolicyName } from '../../src/workers/types.js';
import type { Worker } from '../../src/workers/worker.js';

/** A deterministic sequence for `random`. */
function seq(...values: number[]) {
  let i = 0;
  return () => values[i++ % values.length];
}

function policy(name: PolicyName, random = Math.random, logger = silentLogger()) {
  return createPolicy(name, { modelId: 'm', logger, random });
}

const tokens = (n: number, base = 0) => Array.from({ length: n }, (_, i) => base + i);

describe('policies', () => {
  it('round_robin cycles', () => {
    const p = policy('round_robin');
    const ws = [new W('a'), new W('b'), new W('c')];
    expect([1, 2, 3, 4].map(() => p.select(ws, []).id)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('random uses the injected source', () => {
    const p = policy('random', seq(0.0, 0.99, 0.5));
    const ws = [new W('a'), new W('b'), new W('c')];
    expect([1, 2, 3].map(() => p.select(ws, []).id)).toEqual(['a', 'c', 'b']);
  });

  it('power_of_two picks the less loaded of two distinct workers', () => {
    const ws = [new W('a', 5), new W('b', 1), new W('c', 9)];
    // i = 0 (a); j = 1 + floor(0 * 2) = 1 (b) → b wins on load.
    expect(policy('power_of_two', seq(0, 0)).select(ws, []).id).toBe('b');
    // i = 2 (c); j = (2 + 1 + 0) % 3 = 0 (a) → a wins.
    expect(policy('power_of_two', seq(0.9, 0)).select(ws, []).id).toBe('a');
    expect(policy('power_of_two').select([ws[2]], []).id).toBe('c');
  });

  it('least_load picks the minimum and rotates ties', () => {
    const p = policy('least_load');
    expect(p.select([new W('a', 3), new W('b', 1), new W('c', 2)], []).id).toBe('b');
    const tie = [new W('a'), new W('b')];
    const picks = new Set([1, 2, 3, 4].map(() => p.select(tie, []).id));
    expect(picks).toEqual(new Set(['a', 'b']));
  });

  it('passthrough sends everything to the first worker and warns once', () => {
    const cap = captureLogger();
    const p = policy('passthrough', Math.random, cap.logger);
    const ws = [new W('a', 100), new W('b')];
    expect(p.select(ws, []).id).toBe('a');
    expect(p.select(ws, []).id).toBe('a');
    expect(cap.find('WARN')).toHaveLength(1);
    expect(cap.find('passthrough policy for model m has 2 healthy workers')).toHaveLength(1);
  });

  describe('cache_aware', () => {
    it('routes a repeated prefix to the worker that saw it', () => {
      const p = policy('cache_aware');
      const ws = [new W('a'), new W('b'), new W('c')];
      const system = tokens(64, 1000);
      const first = p.select(ws, [...system, ...tokens(8, 1)]).id;
      for (let i = 0; i < 5; i++) expect(p.select(ws, [...system, ...tokens(8, 50 + i * 10)]).id).toBe(first);
    });

    it('spreads unrelated prompts to the emptiest cache', () => {
      const p = policy('cache_aware');
      const ws = [new W('a'), new W('b')];
      const x = p.select(ws, tokens(48, 0)).id;
      const y = p.select(ws, tokens(48, 5000)).id;
      expect(new Set([x, y])).toEqual(new Set(['a', 'b']));
    });

    it('an unbalanced fleet goes to the least loaded worker regardless of cache', () => {
      const p = policy('cache_aware');
      const a = new W('a');
      const b = new W('b');
      const prompt = tokens(64, 7);
      const first = p.select([a, b], prompt);
      const other = first === a ? b : a;
      first.load = 200;
      other.load = 1;
      expect(p.select([a, b], prompt).id).toBe(other.id);
    });

    it('forgets a removed worker', () => {
      const p = policy('cache_aware');
      const ws = [new W('a'), new W('b')];
      const prompt = tokens(64);
      const first = p.select(ws, prompt).id;
      p.removeWorker?.(first);
      expect(p.select(ws.filter((w) => w.id !== first), prompt).id).not.toBe(first);
    });
  });

  it('block chain keys are prefix keys', () => {
    const a = blockChain(tokens(40));
    const b = blockChain([...tokens(32), 999, 998]);
    expect(a).toHaveLength(3);
    expect(a[0].key).toBe(b[0].key);
    expect(a[1].key).toBe(b[1].key);
    expect(a[2].key).not.toBe(b[2].key);
    expect(a[2].tokens).toBe(8);
  });
});

describe('selector', () => {
  function fakeWorker(id: string, status: string, modelId = 'm') {
    return { id, url: `ipc:///tmp/${id}`, modelId, isReady: status === 'ready', loadScore: () => 0 } as unknown as Worker;
  }

  it('never picks a worker that is not ready, and filters by model', () => {
    const sel = new WorkerSelector('round_robin', silentLogger());
    const ws = [
      fakeWorker('p', 'pending'),
      fakeWorker('n', 'not_ready'),
      fakeWorker('f', 'failed'),
      fakeWorker('d', 'draining'),
      fakeWorker('r', 'ready'),
      fakeWorker('o', 'ready', 'other'),
    ];
    for (let i = 0; i < 5; i++) expect(sel.pick(ws, 'm', [])?.id).toBe('r');
    expect(sel.pick(ws, 'missing', [])).toBeNull();
    expect(sel.pick(ws.slice(0, 4), 'm', [])).toBeNull();
    expect(new Set([1, 2, 3, 4].map(() => sel.pick(ws, null, [])?.id))).toEqual(new Set(['r', 'o']));
  });

  it('cache_aware logs that ZMQ has no KV events, once per model', () => {
    const cap = captureLogger();
    const sel = new WorkerSelector('cache_aware', cap.logger);
    sel.workerAdded(fakeWorker('a', 'pending', 'llama'));
    sel.workerAdded(fakeWorker('b', 'pending', 'llama'));
    sel.workerAdded(fakeWorker('c', 'pending', 'qwen'));
    const note = (m: string) =>
      `cache_aware policy for model ${m}: ZMQ workers have no KV-event stream, so cache tracking falls back to the approximate prefix tree (logged once per model)`;
    expect(cap.find(note('llama'))).toHaveLength(1);
    expect(cap.find(note('qwen'))).toHaveLength(1);
  });
});
