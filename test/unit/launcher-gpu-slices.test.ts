// CUDA_VISIBLE_DEVICES slicing and the child environment (spec cli-and-api §2.5, §2.6).
// Covers §3 behaviours: 48–51 (sequential ids by rank × tp), 52–54 (base env kept, never mutated,
// process env by default), 55–56 (existing pool indexed by rank/tp), 57 (pool too small), 58 (tp 0),
// 59 (empty pool → sequential ids). Clone fix tested: a grouped engine gets E × tp devices.
import { describe, expect, it } from 'vitest';
import { engineEnv, gpuDevicesFor } from '../../src/launcher/gpu-slices.js';
import { LaunchError } from '../../src/launcher/launch-error.js';

const devices = (rank: number, tp: number, pool?: string, engineDp?: number): string =>
  gpuDevicesFor({
    rank,
    tensorParallelSize: tp,
    engineDataParallelSize: engineDp,
    baseEnv: pool === undefined ? {} : { CUDA_VISIBLE_DEVICES: pool },
  }).join(',');

describe('gpuDevicesFor', () => {
  it.each([
    [0, 2, '0,1'],
    [1, 2, '2,3'],
    [2, 4, '8,9,10,11'],
    [3, 1, '3'],
  ])('rank %i, tp %i → %s (§3.48–51)', (rank, tp, want) => {
    expect(devices(rank, tp)).toBe(want);
  });

  it.each([
    ['4', 1, 0, '4'],
    ['4,5,6,7', 2, 0, '4,5'],
    ['4,5,6,7', 2, 1, '6,7'],
    ['4,5,6,7', 1, 3, '7'],
  ])('pool %s, tp %i, rank %i → %s (§3.55, §3.56)', (pool, tp, rank, want) => {
    expect(devices(rank, tp, pool)).toBe(want);
  });

  it('trims entries, drops empties and keeps UUIDs as strings', () => {
    expect(devices(1, 1, ' GPU-aaa , ,GPU-bbb ')).toBe('GPU-bbb');
  });

  it('falls back to sequential ids when the pool is empty (§3.59)', () => {
    expect(devices(0, 2, '')).toBe('0,1');
  });

  it('fails when the pool is too small, exact text, exit 1 (§3.57)', () => {
    expect(() => devices(1, 2, '4,5')).toThrow(
      new LaunchError('CUDA_VISIBLE_DEVICES has 2 GPU(s) but dp_rank=1 with tp_size=2 requires index 2..3'),
    );
    expect(() => devices(1, 1, '4')).toThrow('CUDA_VISIBLE_DEVICES has 1 GPU(s) but dp_rank=1 with tp_size=1 requires index 1..1');
  });

  it('rejects a non-positive tp (§3.58)', () => {
    expect(() => devices(0, 0)).toThrow('tp_size must be positive, got 0');
    expect(() => devices(0, -2)).toThrow('tp_size must be positive, got -2');
  });

  it('gives a grouped engine E × tp devices (SMG gap fixed)', () => {
    expect(devices(0, 2, undefined, 2)).toBe('0,1,2,3');
    expect(devices(1, 2, undefined, 2)).toBe('4,5,6,7');
    expect(devices(1, 1, '0,1,2,3', 2)).toBe('2,3');
    expect(() => devices(1, 2, '0,1,2,3,4,5', 2)).toThrow(
      'CUDA_VISIBLE_DEVICES has 6 GPU(s) but dp_rank=1 with tp_size=2 and engine data-parallel size 2 requires index 4..7',
    );
  });
});

describe('engineEnv', () => {
  it('keeps other vars, sets the slice and PYTHONUNBUFFERED=1, never mutates the base (§3.52, §3.53)', () => {
    const base = Object.freeze({ HF_HOME: '/hf', CUDA_VISIBLE_DEVICES: '4,5,6,7' });
    const { env, devices: d } = engineEnv({ rank: 1, tensorParallelSize: 2, baseEnv: base });
    expect(env).toEqual({ HF_HOME: '/hf', CUDA_VISIBLE_DEVICES: '6,7', PYTHONUNBUFFERED: '1' });
    expect(d).toEqual(['6', '7']);
    expect(base).toEqual({ HF_HOME: '/hf', CUDA_VISIBLE_DEVICES: '4,5,6,7' });
  });

  it('copies the process environment when no base is given (§3.54)', () => {
    const key = 'SMG_LAUNCHER_TEST_MARKER';
    const saved = process.env.CUDA_VISIBLE_DEVICES;
    const unbufferedBefore = process.env.PYTHONUNBUFFERED;
    process.env[key] = 'yes';
    delete process.env.CUDA_VISIBLE_DEVICES;
    try {
      const { env } = engineEnv({ rank: 0, tensorParallelSize: 1 });
      expect(env[key]).toBe('yes');
      expect(env.CUDA_VISIBLE_DEVICES).toBe('0');
      expect(env.PYTHONUNBUFFERED).toBe('1');
      expect(process.env.PYTHONUNBUFFERED).toBe(unbufferedBefore);
      expect(process.env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    } finally {
      delete process.env[key];
      if (saved !== undefined) process.env.CUDA_VISIBLE_DEVICES = saved;
    }
  });
});
