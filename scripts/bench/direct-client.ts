/**
 * The ceiling: the same requests submitted straight to a mock engine through the gateway's own
 * engine client (ZMQ + msgpack, no HTTP, no templating, no detokenization), in the bench process.
 */
import type { EngineClient } from '../../src/engine/engine-client.js';
import type { SamplingSpec } from '../../src/engine/types.js';
import { ArrivalTracker } from './arrivals.js';
import type { RequestFn, RequestResult } from './phase.js';

export interface DirectTarget {
  client: EngineClient;
  promptTokenIds: number[];
  sampling: SamplingSpec;
  timeoutMs: number;
  /** Prefix making request ids unique across phases. */
  idPrefix: string;
}

export function directRequestFn(t: DirectTarget): RequestFn {
  return async (seq, rec): Promise<RequestResult> => {
    const id = `${t.idPrefix}-${seq}`;
    const start = performance.now();
    let first = -1;
    const itl = new ArrivalTracker(rec);
    let tokens = 0;
    let events = 0;
    let finish: string | null = null;
    const timer = setTimeout(() => t.client.abort(id), t.timeoutMs);
    try {
      const stream = t.client.submit({
        requestId: id,
        promptTokenIds: t.promptTokenIds,
        sampling: t.sampling,
        arrivalTime: Date.now() / 1000,
        cacheSalt: null,
        dataParallelRank: null,
        priority: 0,
        stream: true,
      });
      for await (const chunk of stream) {
        const n = chunk.newTokenIds.length;
        if (n > 0) {
          const now = performance.now();
          if (first < 0) first = now;
          itl.add(now, n);
          tokens += n;
          events += 1;
        }
        if (chunk.finish !== null) finish = chunk.finish;
      }
    } catch (err) {
      return { ok: false, error: (err as Error).message, tokens: 0, events, arrivals: itl.arrivals, ttftMs: Number.NaN, e2eMs: performance.now() - start };
    } finally {
      clearTimeout(timer);
      itl.flush();
    }
    const e2eMs = performance.now() - start;
    if (finish === null) return { ok: false, error: 'aborted (timeout)', tokens, events, arrivals: itl.arrivals, ttftMs: Number.NaN, e2eMs };
    if (finish !== 'length' && finish !== 'stop') {
      return { ok: false, error: `finish=${finish}`, tokens, events, arrivals: itl.arrivals, ttftMs: Number.NaN, e2eMs };
    }
    return { ok: true, tokens, events, arrivals: itl.arrivals, ttftMs: first - start, e2eMs };
  };
}
