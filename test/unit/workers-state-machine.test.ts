import { describe, expect, it } from 'vitest';
import { applyProbe, freshCounters, type ProbeCounters } from '../../src/workers/state-machine.js';
import type { WorkerStatus } from '../../src/workers/types.js';

const T = { successThreshold: 2, failureThreshold: 3 };

function run(status: WorkerStatus, results: boolean[], counters: ProbeCounters = freshCounters()) {
  const trail: WorkerStatus[] = [];
  let s = status;
  let c = counters;
  for (const ok of results) {
    ({ status: s, counters: c } = applyProbe(s, c, ok, T));
    trail.push(s);
  }
  return trail;
}

describe('worker state machine', () => {
  it('pending → ready after success_threshold successes', () => {
    expect(run('pending', [true, true])).toEqual(['pending', 'ready']);
  });

  it('pending → failed after 10 × failure_threshold probes in total', () => {
    const trail = run('pending', Array(30).fill(false));
    expect(trail[28]).toBe('pending');
    expect(trail[29]).toBe('failed');
  });

  it('pending probes count in total, successes do not reset them', () => {
    const results = [...Array(28).fill(false), true, false];
    expect(run('pending', results).at(-1)).toBe('failed');
  });

  it('ready → not_ready after failure_threshold consecutive failures; a success resets', () => {
    expect(run('ready', [false, false, true, false, false])).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    expect(run('ready', [false, false, false])).toEqual(['ready', 'ready', 'not_ready']);
  });

  it('not_ready → failed after 3 × failure_threshold consecutive failures (9)', () => {
    const trail = run('ready', Array(9).fill(false));
    expect(trail[2]).toBe('not_ready');
    expect(trail[7]).toBe('not_ready');
    expect(trail[8]).toBe('failed');
  });

  it('not_ready → ready after success_threshold successes', () => {
    expect(run('not_ready', [true, true])).toEqual(['not_ready', 'ready']);
  });

  it('failed and draining ignore probes', () => {
    expect(run('failed', [true, true, true])).toEqual(['failed', 'failed', 'failed']);
    expect(run('draining', [false, false, false, false])).toEqual(Array(4).fill('draining'));
  });
});
