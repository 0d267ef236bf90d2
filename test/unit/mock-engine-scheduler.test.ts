import { describe, expect, it } from 'vitest';
import { countGenerator } from '../../src/mock-engine/generator.js';
import type { MockRequest, MockSampling } from '../../src/mock-engine/request.js';
import { RankScheduler, type SchedulerConfig, type StepResult } from '../../src/mock-engine/scheduler.js';

const cfg = (over: Partial<SchedulerConfig> = {}): SchedulerConfig => ({
  maxModelLen: 4096,
  maxNumSeqs: 256,
  maxNumBatchedTokens: 8192,
  blockSize: 16,
  numGpuBlocks: 4096,
  logStats: true,
  ...over,
});

function req(id: string, s: Partial<MockSampling> = {}, prompt = [1, 2, 3]): MockRequest {
  return {
    id,
    prompt,
    sampling: {
      maxTokens: 16, minTokens: 0, stopTokenIds: [], eosTokenId: null, ignoreEos: false,
      logprobs: null, promptLogprobs: null, seed: null, temperature: 0, ...s,
    },
  };
}

function drain(s: RankScheduler, maxSteps = 1000): StepResult[] {
  const steps: StepResult[] = [];
  for (let i = 0; i < maxSteps && s.hasWork; i++) steps.push(s.step(i));
  return steps;
}

const tokens = (steps: StepResult[], id: string) =>
  steps.flatMap((st) => st.outputs.filter((o) => o.requestId === id).flatMap((o) => o.newTokenIds));
const last = (steps: StepResult[], id: string) =>
  steps.flatMap((st) => st.outputs.filter((o) => o.requestId === id)).at(-1);

describe('mock-engine scheduler', () => {
  it('follows vLLM stop precedence: min_tokens gate, EOS, stop ids, length (Errata 3)', () => {
    const s = new RankScheduler(cfg(), countGenerator(100));
    s.add(req('eos-last', { maxTokens: 3, eosTokenId: 102 }), 0);
    s.add(req('gated', { maxTokens: 5, minTokens: 3, stopTokenIds: [101] }), 0);
    s.add(req('ctx', { maxTokens: 100 }, [1, 2, 3, 4, 5]), 0);
    const s2 = new RankScheduler(cfg({ maxModelLen: 8 }), countGenerator(100));
    s2.add(req('ctx', { maxTokens: 100 }, [1, 2, 3, 4, 5]), 0);
    const steps = drain(s);
    expect(last(steps, 'eos-last')).toMatchObject({ finishReason: 0, stopReason: null });
    expect(tokens(steps, 'gated')).toEqual([100, 101, 102, 103, 104]);
    expect(last(steps, 'gated')?.finishReason).toBe(1);
    const ctx = drain(s2);
    expect(tokens(ctx, 'ctx')).toEqual([100, 101, 102]);
    expect(last(ctx, 'ctx')?.finishReason).toBe(1);
  });

  it('chunks long prefills by the token budget and reports stats-only steps meanwhile', () => {
    const s = new RankScheduler(cfg({ maxNumBatchedTokens: 10 }), countGenerator(100));
    s.add(req('long', { maxTokens: 2 }, Array.from({ length: 25 }, (_, i) => i)), 0);
    const steps = drain(s);
    expect(steps.map((st) => st.outputs.length)).toEqual([0, 0, 1, 1]);
    expect(steps[2].outputs[0].events?.map((e) => e.type)).toEqual([1, 2]);
    expect(steps[2].outputs[0].prefillStats?.numPromptTokens).toBe(25);
  });

  it('queues beyond max_num_seqs and preempts the newest request when KV runs out', () => {
    const s = new RankScheduler(cfg({ maxNumSeqs: 1 }), countGenerator(100));
    s.add(req('a', { maxTokens: 2 }), 0);
    s.add(req('b', { maxTokens: 2 }), 0);
    s.step(0);
    expect([s.numRunning, s.numWaiting]).toEqual([1, 1]);
    drain(s);

    // 2 blocks of 4 tokens: two requests fit at first, then one must make room.
    const k = new RankScheduler(cfg({ blockSize: 4, numGpuBlocks: 2 }), countGenerator(100));
    k.add(req('x', { maxTokens: 4 }), 0);
    k.add(req('y', { maxTokens: 4 }), 0);
    const steps = drain(k);
    expect(tokens(steps, 'x')).toEqual([100, 101, 102, 103]);
    expect(tokens(steps, 'y')).toEqual([100, 101, 102, 103]);
    const yEvents = steps.flatMap((st) => st.outputs.filter((o) => o.requestId === 'y').flatMap((o) => o.events ?? []));
    expect(yEvents.map((e) => e.type)).toContain(3);
    expect(k.kvUsage).toBe(0);
  });

  it('shifts count ids by seed only for non-greedy requests', () => {
    const s = new RankScheduler(cfg(), countGenerator(100));
    s.add(req('greedy', { maxTokens: 1, seed: 5 }), 0);
    s.add(req('seeded', { maxTokens: 1, seed: 5, temperature: 1 }), 0);
    const steps = drain(s);
    expect(tokens(steps, 'greedy')).toEqual([100]);
    expect(tokens(steps, 'seeded')).toEqual([100 + 256 * 5]);
  });
});
