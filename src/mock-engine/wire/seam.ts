/**
 * The mock's wire seam: the engine-side shapes it reads and writes. Rank logic speaks these types
 * only, so the byte-level codec can change without touching the simulation.
 */
import type { MockRequest } from '../request.js';
import type { OutItem } from '../scheduler.js';

export type InputMessage =
  | { kind: 'add'; request: MockRequest }
  | { kind: 'abort'; ids: string[] }
  | { kind: 'start_wave'; wave: number; exclude: number | null }
  | { kind: 'utility'; callId: number | bigint; method: string; args: unknown[] }
  /** Read and deliberately not acted on (0x05 with a payload, a wave message a dense rank skips). */
  | { kind: 'ignored'; reason: string };

/**
 * An input the real engine cannot survive. `fatal` → the busy loop dies (ENGINE_CORE_DEAD + exit);
 * otherwise only the input thread dies (it stops reading; admitted requests still finish).
 */
export class InputRejected extends Error {
  override name = 'InputRejected';
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message);
  }
}

export interface SchedulerStatsView {
  numRunning: number;
  numWaiting: number;
  stepCounter: number;
  currentWave: number;
  kvCacheUsage: number;
  prefixRequests: number;
  prefixQueries: number;
  /** Prompt tokens found in the simulated prefix cache this step (0 without --enable-prefix-caching). */
  prefixHits?: number;
}

export interface Envelope {
  engineIndex: number;
  outputs: OutItem[];
  stats: SchedulerStatsView | null;
  /** Engine-monotonic seconds. */
  timestamp: number;
  utility: { callId: number | bigint; failure: string | null; result: unknown } | null;
  finishedRequests: string[] | null;
  waveComplete: number | null;
}

export function emptyEnvelope(engineIndex: number, timestamp: number): Envelope {
  return {
    engineIndex,
    outputs: [],
    stats: null,
    timestamp,
    utility: null,
    finishedRequests: null,
    waveComplete: null,
  };
}

/** `time.monotonic()`-like seconds, comparable only within this process. */
export function monotonicSeconds(): number {
  return performance.now() / 1000;
}
