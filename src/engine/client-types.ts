import type { EngineLoad, EngineRequest, Registration, RequestOutput, RuntimeType } from './types.js';

/**
 * One step of a request's output as the pipeline consumes it: the dialect's normalized output,
 * passed through without copying (its `requestId` is simply ignored downstream).
 */
export type EngineChunk = Omit<RequestOutput, 'requestId'> & { requestId?: string };

/**
 * Why a request or a whole connection failed. `kind` decides the HTTP status upstream:
 * dead → 503, everything else → 500 (spec smg-newest §2.9).
 */
export type EngineErrorKind = 'dead' | 'closed' | 'decode' | 'transport' | 'engine_error' | 'invalid';

export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    /** For `invalid`: the wire field the dialect's guard refused (`sampling_params.top_k`), if known. */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

/** Per-rank view for /workers and metrics. */
export interface RankState {
  rank: number;
  inFlight: number;
  load: EngineLoad | null;
  /** Prefix-cache tokens queried / hit since this client connected (sums of the per-step counters). */
  prefixQueries?: number;
  prefixHits?: number;
}

/** Push-mode consumer of a request's chunks: called synchronously as outputs are decoded. */
export interface ChunkListener {
  chunk(c: EngineChunk): void;
  /** The request ended (terminal output delivered, or aborted locally). */
  end(): void;
  fail(err: EngineError): void;
}

/**
 * A live request: its chunks in order, either iterated (the iterator throws EngineError on
 * failure) or pushed to one listener. `listen` must be called before the first chunk can arrive
 * (right after `submit`, in the same tick) and replaces iteration: the hot path then costs no
 * promise per engine step.
 */
export interface RequestStream extends AsyncIterable<EngineChunk> {
  readonly requestId: string;
  readonly rank: number;
  listen(listener: ChunkListener): void;
}

export interface EngineClientApi {
  readonly url: string;
  readonly runtime: RuntimeType;
  readonly registrations: readonly Registration[];
  /** False once any liveness rule has latched the client dead or it was closed. */
  readonly alive: boolean;
  /** The smallest max_model_len across ranks. */
  readonly maxModelLen: number;
  submit(req: EngineRequest): RequestStream;
  /** Ends the request locally and sends ABORT; idempotent. */
  abort(requestId: string): void;
  ranks(): RankState[];
  /** Called once when the client latches dead (with the reason). */
  onDead(listener: (err: EngineError) => void): void;
  close(): Promise<void>;
}
