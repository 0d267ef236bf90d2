/**
 * The positional output decoder against random engine batches written by the engine-side encoder
 * (byte-compatible with msgspec, vectors O1…O10): every field the gateway reads comes back as
 * written, whatever the int widths, string lengths (ASCII and not), optional fields and extra
 * trailing fields of a newer engine.
 */
import { describe, expect, it } from 'vitest';
import { decodeOutput } from '../../src/engine/dialects/vllm/index.js';
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
});
