import type { IdTable } from './id-table.js';

/**
 * Dialect-neutral shapes that cross the engine seam. Only `engine/dialects/*` know wire shapes;
 * everything above them (engine client, pipeline, gateway) speaks these types.
 */

export type RuntimeType = 'vllm' | 'tokenspeed';

/** Structured-output constraint; at most one is set per request. */
export type StructuredConstraint =
  | { kind: 'json_schema'; schema: string | Record<string, unknown> }
  | { kind: 'json_object' }
  | { kind: 'regex'; pattern: string }
  | { kind: 'grammar'; grammar: string }
  | { kind: 'choice'; choices: string[] }
  | { kind: 'structural_tag'; tag: string };

/** Sampling as the gateway has decided it; each dialect maps it onto its own wire form. */
export interface SamplingSpec {
  temperature: number;
  topP: number;
  topK: number; // 0 or -1 = disabled
  minP: number;
  presencePenalty: number;
  frequencyPenalty: number;
  repetitionPenalty: number;
  seed: number | null;
  maxTokens: number; // always explicit, >= 1
  minTokens: number;
  /** Token ids the engine stops on (its stop_reason reports the id). */
  stopTokenIds: number[];
  /** Primary EOS id (vLLM `_eos_token_id`); null when ignore_eos or unknown. */
  eosTokenId: number | null;
  /** Every id that counts as a stop for min_tokens masking (vLLM `_all_stop_token_ids`). */
  allStopTokenIds: number[];
  ignoreEos: boolean;
  /** Top-k sample logprobs per generated token; null = none. */
  logprobs: number | null;
  promptLogprobs: number | null;
  logitBias: Map<number, number> | null;
  allowedTokenIds: number[] | null;
  badWordsTokenIds: number[][] | null;
  structured: StructuredConstraint | null;
  skipSpecialTokens: boolean;
}

export interface EngineRequest {
  /** Wire id: unique among live requests of one engine client. */
  requestId: string;
  promptTokenIds: number[];
  sampling: SamplingSpec;
  /** Wall-clock epoch seconds. */
  arrivalTime: number;
  cacheSalt: string | null;
  /** Pin to a data-parallel rank; null lets the client choose. */
  dataParallelRank: number | null;
  priority: number;
  /**
   * Whether the client streams (TokenSpeed `stream`: per-step rows instead of rows at the 1st,
   * every 50th and the final token). Absent = true; vLLM ignores it.
   */
  stream?: boolean;
}

export type FinishReason = 'stop' | 'length' | 'abort' | 'error' | 'repetition';

export interface TopLogprob {
  tokenId: number;
  logprob: number;
}

/** Logprob information for one generated token. */
export interface TokenLogprob {
  tokenId: number;
  logprob: number;
  /** Vocab rank (>= 1) of the sampled token, when the engine reports it. */
  rank: number | null;
  /** Ranked candidates as the engine sent them (may repeat the sampled id). */
  top: TopLogprob[];
}

/** One request's progress inside one output batch. */
export interface RequestOutput {
  requestId: string;
  /** Tokens generated since the previous output for this request (delta). */
  newTokenIds: number[];
  finish: FinishReason | null;
  /** Matched stop token id (or string) when a stop token ended generation. */
  stopReason: number | string | null;
  logprobs: TokenLogprob[] | null;
  /** Prompt tokens served from cache, when the engine reports it. */
  cachedTokens: number | null;
  /** Engine-side error text, when it sends one (TokenSpeed abort rows). */
  errorMessage: string | null;
  /** Cumulative prompt tokens as the engine counts them, when it reports them (TokenSpeed). */
  promptTokens?: number | null;
  /** Cumulative generated tokens including this output's and the stop token (TokenSpeed). */
  completionTokens?: number | null;
  /**
   * True when the last id of `newTokenIds` is the token that ended generation by a stop condition
   * (EOS, a stop_token_ids id, or a grammar's terminating token). The engine counts it; the
   * gateway decides whether to render it (no_stop_trim). Absent when the dialect cannot tell.
   */
  endsWithStopToken?: boolean;
  /**
   * Seconds the request waited in the engine's queue (vLLM `events`: SCHEDULED − QUEUED, both on
   * the engine's clock); on the output that carries the events, absent otherwise.
   */
  queuedSecs?: number;
}

export interface EngineLoad {
  numRunning: number;
  numWaiting: number;
  kvCacheUsage: number;
  /**
   * Prefix-cache counters of this one step (vLLM `scheduler_stats.prefix_cache_stats.queries` /
   * `.hits`, in tokens); absent when the engine does not report them (TokenSpeed).
   */
  prefixQueries?: number;
  prefixHits?: number;
}

/** What one message on the output socket means, after decoding. */
export type OutputEvent =
  | {
      kind: 'batch';
      engineIndex: number;
      outputs: RequestOutput[];
      load: EngineLoad | null;
      /** Ids the engine says are finished (engine-initiated finishes). */
      finishedRequests: string[] | null;
    }
  | { kind: 'utility'; engineIndex: number; callId: number; failure: string | null; result: unknown }
  | { kind: 'wave_complete'; engineIndex: number; wave: number }
  | { kind: 'start_wave'; engineIndex: number; wave: number }
  | { kind: 'dead' };

/** The engine's registration (vLLM EngineCoreReadyResponse), defaults filled in. */
export interface Registration {
  maxModelLen: number;
  numGpuBlocks: number;
  blockSize: number;
  dtype: string;
  version: string;
  worldSize: number;
  dataParallelSize: number;
  dataParallelRank: number | null;
  tensorParallelSize: number;
  maxNumSeqs: number | null;
  maxNumBatchedTokens: number | null;
  instanceId: string | null;
  /** Every key the engine sent, for display and forward compatibility. */
  raw: Record<string, unknown>;
}

/** The frames that follow the ROUTER identity on the input socket: [type byte, payload, aux…]. */
export type InputFrames = Buffer[];

export interface Dialect {
  readonly runtime: RuntimeType;
  encodeAdd(req: EngineRequest): InputFrames;
  encodeAbort(requestIds: string[]): InputFrames;
  /** Null when the engine has no lockstep waves. */
  encodeStartWave(wave: number): InputFrames | null;
  /** Throws WireDecodeError on a registration the gateway must reject. */
  decodeRegistration(payload: Buffer): Registration;
  /** Throws WireDecodeError on an undecodable message. */
  /**
   * `known` holds the ids in flight: a dialect may return those strings instead of decoding the
   * same bytes again on every step.
   */
  decodeOutput(frames: Buffer[], known?: IdTable | null): OutputEvent;
}

export class WireDecodeError extends Error {
  override name = 'WireDecodeError';
}

/**
 * Thrown by `Dialect.encode*` for a request the engine would reject. Engines validate on decode
 * and a rejected message kills their input thread silently, so refusing to send is the only safe
 * reaction (the caller should fail that one request, not the connection).
 */
export class WireEncodeError extends Error {
  override name = 'WireEncodeError';
}
