import { describe, expect, it } from 'vitest';
import type { Registration } from '../../src/engine/types.js';
import { WaveClock } from '../../src/engine/wave-clock.js';

const reg = (dataParallelSize: number): Registration => ({
  maxModelLen: 4096,
  numGpuBlocks: 1,
  blockSize: 16,
  dtype: 'bfloat16',
  version: '0.27.1',
  worldSize: 1,
  dataParallelSize,
  dataParallelRank: 0,
  tensorParallelSize: 1,
  maxNumSeqs: null,
  maxNumBatchedTokens: null,
  instanceId: null,
  raw: {},
});

describe('WaveClock', () => {
  it('detects lockstep from any registration with data_parallel_size > 1', () => {
    expect(WaveClock.forRegistrations([reg(1), reg(1)]).lockstep).toBe(false);
    expect(WaveClock.forRegistrations([reg(1), reg(2)]).lockstep).toBe(true);
  });

  it('bumps after every ADD; the first submit sends wave 1', () => {
    const c = new WaveClock(true);
    expect(c.afterAdd()).toBe(1);
    expect(c.afterAdd()).toBe(2);
    expect(c.current).toBe(2);
  });

  it('wave_complete w moves the clock to max(W, w+1) without waking', () => {
    const c = new WaveClock(true);
    c.onWaveComplete(7);
    expect(c.current).toBe(8);
    c.onWaveComplete(3); // stale report never moves it back
    expect(c.current).toBe(8);
    expect(c.afterAdd()).toBe(9);
  });

  it('start_wave w catches up to max(W, w) then bumps for the broadcast', () => {
    const c = new WaveClock(true);
    expect(c.onStartWave(5)).toBe(6);
    expect(c.onStartWave(2)).toBe(7);
  });

  it('independent groups never send and keep no clock', () => {
    const c = new WaveClock(false);
    expect(c.afterAdd()).toBeNull();
    c.onWaveComplete(9);
    expect(c.onStartWave(4)).toBeNull();
    expect(c.current).toBe(0);
  });
});
