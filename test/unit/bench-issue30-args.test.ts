import { describe, expect, it } from 'vitest';
import { DEFAULT_PHASES, PHASE_GROUPS, pacedMaxTokens, parseBenchArgs } from '../../scripts/bench/args.js';
import { meetsGoal, type Figure } from '../../scripts/bench/figures.js';
import { generateGrowth } from '../../scripts/bench/figures-30.js';

describe('npm run bench: issue 30 options and figures', () => {
  it('runs issue 30 phases by default and every phase with --phases all', () => {
    expect(parseBenchArgs([])!.phases).toEqual([...DEFAULT_PHASES]);
    expect(parseBenchArgs(['--phases', 'all'])!.phases).toEqual([...PHASE_GROUPS]);
    expect(() => parseBenchArgs(['--phases', 'pacd'])).toThrow(/unknown phase 'pacd'/);
  });

  it('gives paced streams enough tokens to outlast the window at one token per step', () => {
    const o = parseBenchArgs([])!;
    expect([o.pacedStreams, o.pacedStepMs, o.arrivals, o.longPromptTokens, o.longStreams]).toEqual([1000, 50, 1000, 131_072, 192]);
    // ramp 2 + settle 1 + window 8 + slack 6 = 17 s at 20 tokens/s
    expect(pacedMaxTokens(o)).toBe(340);
  });

  it('judges ratio goals on gateway ÷ ceiling and growth of /generate per token', () => {
    const f: Figure = { key: 'k', label: 'l', unit: 'µs', values: { gateway: 24, ceiling: 20 }, goal: { op: '<=', value: 1.2, on: 'ratio', text: '' } };
    expect(meetsGoal(f)).toBe(true);
    expect(meetsGoal({ ...f, values: { gateway: 25, ceiling: 20 } })).toBe(false);
    const cell = (n: number, incremental: boolean, us: number) => ({ tokensPerStream: n, incremental, streams: 2, tokens: 2 * n, cpuUsPerToken: us, bytesPerToken: 1, wallSec: 1 });
    const cells = [cell(1024, true, 8), cell(8192, true, 9), cell(1024, false, 20), cell(8192, false, 150)];
    expect(generateGrowth(cells, [1024, 8192], true)).toBeCloseTo(1.125);
    expect(generateGrowth(cells, [1024, 8192], false)).toBeCloseTo(7.5);
  });
});
