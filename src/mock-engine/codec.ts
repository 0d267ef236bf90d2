/**
 * Adapter from the engine side of the vLLM wire (wire/vllm/) to the mock's wire seam (wire/seam.ts): strict
 * input decode with the real engine's consequences, and envelope encoding.
 */
import { ENGINE_CORE_DEAD, RequestType } from '../engine/dialects/vllm/index.js';
import { decodeEngineInput, encodeOutputs, type ParsedAddRequest } from './wire/vllm/index.js';
import type { RankCodec } from './rank.js';
import type { MockRequest } from './request.js';
import { InputRejected, type Envelope, type InputMessage } from './wire/seam.js';

/** The 16-byte death sentinel, a single frame. */
export const ENGINE_CORE_DEAD_FRAME: Buffer = ENGINE_CORE_DEAD;
/** 0xc1 is the one byte msgpack never uses: undecodable by construction. */
export const GARBAGE_FRAME: Buffer = Buffer.from([0xc1]);

export function makeVllmCodec(lockstep: boolean): RankCodec {
  return {
    decodeInput: (frames) => decodeInput(frames, lockstep),
    encodeEnvelope,
  };
}

function decodeInput(frames: Buffer[], lockstep: boolean): InputMessage {
  const input = decodeEngineInput(frames);
  switch (input.kind) {
    case 'add':
      return { kind: 'add', request: toMockRequest(input.request) };
    case 'abort':
      return { kind: 'abort', ids: input.requestIds };
    case 'start_wave':
      return { kind: 'start_wave', wave: input.wave, exclude: input.excludeRank };
    case 'utility':
      return { kind: 'utility', callId: input.callId, method: input.method, args: input.args };
    case 'wakeup':
      return { kind: 'ignored', reason: 'WAKEUP (0x05) with a payload' };
    case 'input_dead':
      throw new InputRejected(input.reason, false);
    case 'engine_dead':
      // A dense engine logs START_DP_WAVE as unrecognized without unpacking it.
      if (!lockstep && input.requestType === RequestType.START_DP_WAVE) {
        return { kind: 'ignored', reason: `Unrecognized input request type START_DP_WAVE (${input.reason})` };
      }
      throw new InputRejected(input.reason, true);
  }
}

function toMockRequest(r: ParsedAddRequest): MockRequest {
  const s = r.sampling;
  return {
    id: r.requestId,
    prompt: r.promptTokenIds ?? [],
    priority: r.priority,
    sampling: {
      // nil max_tokens means "until max_model_len", which the stop check enforces anyway.
      maxTokens: s.maxTokens ?? Number.MAX_SAFE_INTEGER,
      minTokens: s.minTokens,
      stopTokenIds: s.stopTokenIds,
      eosTokenId: s.eosTokenId,
      ignoreEos: s.ignoreEos,
      logprobs: s.logprobs,
      promptLogprobs: s.promptLogprobs,
      seed: s.seed,
      temperature: s.temperature,
    },
    structured: structuredSummary(s.structuredOutputs),
  };
}

/** The constraint keys that are set, as compact JSON for the request log (tests read it there). */
function structuredSummary(so: ParsedAddRequest['sampling']['structuredOutputs']): string | undefined {
  if (!so) return undefined;
  const set = Object.fromEntries(Object.entries(so).filter(([, v]) => v !== null && v !== false));
  return JSON.stringify(set);
}

export function encodeEnvelope(env: Envelope): Buffer[] {
  const st = env.stats;
  return encodeOutputs({
    engineIndex: env.engineIndex,
    // OutItem is a WireOutput: the scheduler's items go out as they are, no per-step copy.
    outputs: env.outputs,
    schedulerStats: st && {
      numRunningReqs: st.numRunning,
      numWaitingReqs: st.numWaiting,
      stepCounter: st.stepCounter,
      currentWave: st.currentWave,
      kvCacheUsage: st.kvCacheUsage,
      prefixCacheStats: {
        reset: false,
        requests: st.prefixRequests,
        queries: st.prefixQueries,
        hits: st.prefixHits ?? 0,
        preemptedRequests: 0,
        preemptedQueries: 0,
        preemptedHits: 0,
      },
    },
    timestamp: env.timestamp,
    utility: env.utility,
    finishedRequests: env.finishedRequests,
    waveComplete: env.waveComplete,
  });
}
