import { describe, expect, it } from 'vitest';
import { ArgsError, parseMockArgs } from '../../src/mock-engine/args.js';
import { parseRankLoads, withExtraLoad } from '../../src/mock-engine/rank-load.js';

describe('--mock-rank-load', () => {
  it('parses RANK:RUNNING:WAITING:KV entries, comma-separated', () => {
    expect(parseRankLoads('0:4:8:0.95, 1:0:2:.3', 2)).toEqual([
      { rank: 0, running: 4, waiting: 8, kv: 0.95 },
      { rank: 1, running: 0, waiting: 2, kv: 0.3 },
    ]);
    expect(parseRankLoads(null, 2)).toEqual([]);
  });

  it('rejects bad entries as usage errors', () => {
    const argv = (v: string) => ['serve', 'm', '-dp', '2', '--mock-rank-load', v];
    expect(() => parseMockArgs(argv('0:4:8'))).toThrow(ArgsError);
    expect(() => parseMockArgs(argv('2:1:1:0.5'))).toThrow('rank 2 is outside the group of 2');
    expect(() => parseMockArgs(argv('0:1:1:1.5'))).toThrow('KV usage must be within 0..1');
    expect(() => parseMockArgs(argv('0:1:1:0.5,0:2:2:0.5'))).toThrow('rank 0 given twice');
    expect(parseMockArgs(argv('1:1:1:1')).rankLoad).toBe('1:1:1:1');
  });

  it('adds to the rank\'s own counts and caps KV usage at 1', () => {
    const own = { numRunning: 2, numWaiting: 1, kvCacheUsage: 0.2, stepCounter: 0 };
    expect(withExtraLoad(own, { rank: 0, running: 4, waiting: 8, kv: 0.95 })).toEqual({
      numRunning: 6,
      numWaiting: 9,
      kvCacheUsage: 1,
      stepCounter: 0,
    });
    expect(withExtraLoad(own, null)).toBe(own);
  });
});
