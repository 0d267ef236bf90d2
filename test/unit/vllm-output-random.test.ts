/**
 * The positional output decoder against random engine batches written by the engine-side encoder
 * (byte-compatible with msgspec, vectors O1…O10): every field the gateway reads comes back as
 * written, whatever the int widths, string lengths (ASCII and not), optional fields and extra
 * trailing fields of a newer engine.
 */
import { describe, expect, it } from 'vitest';
import { decodeOutput } from '../../src/engine/dialects/vllm/index.js';
import { IdTable } from '../../src/engine/id-table.js';
import type { OutputEvent } from '../../src/engine/types.js';
import { encodeOutputs, type WireOutput, type WireOutputs } from '../../src/mock-engine/wire/vllm/index.js';
import { rng } from '../support/splits.js';

const FINISH = ['stop', 'length', 'abort', 'error', 'repetition'] as const;

function randomBatch(next: () => number, i: number): WireOutputs {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const int = (max: number) => Math.floor(next() * max);
  const idChars = Array.from(next() < 0.2 ? 'aé😀b-' : 'abcdefXYZ0123456789-');
  const outputs: WireOutput[] = Array.from({ length: int(8) }, () => {
    const len = pick([1, 8, 31, 32, 70, 255, 256, 300]);
    const requestId = Array.from({ length: len }, () => idChars[int(idChars.length)]).join('');
    const newTokenIds = Array.from({ length: int(6) }, () => pick([0, 5, 127, 128, 255, 256, 65535, 65536, 151_643, 2 ** 31 - 1]));
    const finished = next() < 0.3;
    return {
      requestId,
      newTokenIds,
      finishReason: finished ? int(5) : null,
      stopReason: finished && next() < 0.5 ? (next() < 0.5 ? int(200_000) : 'STOP') : null,
      prefillStats:
        next() < 0.3
          ? { numPromptTokens: int(5000), numComputedTokens: 0, numCachedTokens: int(4000), numLocalCachedTokens: 0, numExternalCachedTokens: 0, numCacheCreationTokens: 0 }
          : null,
      events: next() < 0.2 ? [{ type: 1, timestamp: 1.5 }] : null,
      extraFields: next() < 0.2 ? ['future', { nested: [1, 2] }, null] : undefined,
    };
  });
  return {
    engineIndex: int(4),
    outputs,
    schedulerStats: next() < 0.5 ? { numRunningReqs: int(300), numWaitingReqs: int(300), kvCacheUsage: next() } : null,
    timestamp: 1000 + i,
    finishedRequests: next() < 0.2 ? ['x', 'y'] : null,
  };
}

function expected(b: WireOutputs): OutputEvent {
  return {
    kind: 'batch',
    engineIndex: b.engineIndex,
    outputs: b.outputs.map((o) => {
      const finish = o.finishReason === null || o.finishReason === undefined ? null : FINISH[o.finishReason];
      return {
        requestId: o.requestId,
        newTokenIds: [...o.newTokenIds],
        finish,
        stopReason: o.stopReason ?? null,
        logprobs: null,
        cachedTokens: o.prefillStats ? o.prefillStats.numCachedTokens : null,
        errorMessage: null,
        endsWithStopToken: finish === 'stop' && o.newTokenIds.length > 0,
      };
    }),
    load: b.schedulerStats
      ? { numRunning: b.schedulerStats.numRunningReqs, numWaiting: b.schedulerStats.numWaitingReqs, kvCacheUsage: b.schedulerStats.kvCacheUsage }
      : null,
    finishedRequests: b.finishedRequests ? [...b.finishedRequests] : null,
  };
}

describe('positional EngineCoreOutputs decoding', () => {
  it('decodes 2000 random batches exactly as they were written', () => {
    const next = rng(42);
    for (let i = 0; i < 2000; i++) {
      const b = randomBatch(next, i);
      expect(decodeOutput(encodeOutputs(b))).toEqual(expected(b));
    }
  });

  it('gives the same result with the in-flight id table, whether an id is in it or not', () => {
    const next = rng(7);
    for (let i = 0; i < 1000; i++) {
      const b = randomBatch(next, i);
      const known = new IdTable();
      // Half of the ids are in flight; the others are late outputs of finished requests.
      b.outputs.forEach((o, j) => j % 2 === 0 && known.add(o.requestId));
      const ev = decodeOutput(encodeOutputs(b), known);
      expect(ev).toEqual(expected(b));
    }
  });
});

describe('IdTable', () => {
  it('finds ids by their bytes, tells apart ids sharing a hash, forgets deleted ones, skips non-ASCII', () => {
    const t = new IdTable();
    // Same length and same last 4 bytes: the same hash bucket.
    const a = 'req-AAAA-tail';
    const b = 'req-BBBB-tail';
    t.add(a);
    t.add(b);
    t.add('réq-1');
    const bytes = (s: string) => Buffer.from(`xx${s}yy`, 'utf8');
    const find = (s: string) => t.find(bytes(s), 2, Buffer.byteLength(s));
    expect(find(a)).toBe(a);
    expect(find(b)).toBe(b);
    expect(find('req-CCCC-tail')).toBeUndefined();
    expect(find('réq-1')).toBeUndefined();
    t.delete(a);
    expect(find(a)).toBeUndefined();
    expect(find(b)).toBe(b);
    t.clear();
    expect(find(b)).toBeUndefined();
  });

  it('keeps every id of a crowded hash bucket findable as others come and go', () => {
    const t = new IdTable();
    const ids = ['x-0001-tail', 'x-0002-tail', 'x-0003-tail', 'ab', 'abc'];
    for (const id of ids) t.add(id);
    const find = (s: string) => t.find(Buffer.from(s, 'latin1'), 0, s.length);
    for (const id of ids) expect(find(id)).toBe(id);
    t.delete('x-0002-tail');
    t.delete('x-0001-tail');
    expect(find('x-0001-tail')).toBeUndefined();
    expect(find('x-0002-tail')).toBeUndefined();
    expect(find('x-0003-tail')).toBe('x-0003-tail');
    t.delete('x-0003-tail');
    t.add('x-0001-tail');
    expect(find('x-0001-tail')).toBe('x-0001-tail');
    expect(find('x-0003-tail')).toBeUndefined();
    // An id that is not in the table but shares a bucket with one that is.
    expect(find('x-0009-tail')).toBeUndefined();
    expect(find('ab')).toBe('ab');
    expect(find('abd')).toBeUndefined();
  });
});
