/**
 * The mock's view of an admitted request, reduced from the decoded EngineCoreRequest to the fields
 * a real engine acts on (spec wire-vllm §3.3, "used by: engine"), plus its scheduling state.
 */

export interface MockSampling {
  maxTokens: number;
  minTokens: number;
  stopTokenIds: number[];
  eosTokenId: number | null;
  ignoreEos: boolean;
  logprobs: number | null;
  promptLogprobs: number | null;
  seed: number | null;
  temperature: number;
}

export interface MockRequest {
  id: string;
  prompt: number[];
  sampling: MockSampling;
  /** Structured-output constraint as received (compact JSON), only for the request log. */
  structured?: string;
  /** EngineCoreRequest.priority as received (vLLM only; TokenSpeed's wire has no such slot). */
  priority?: number;
}

/** Scheduling state the step loop keeps per request. */
export interface LiveRequest extends MockRequest {
  /** Engine-monotonic seconds when the ADD was read (QUEUED event). */
  queuedAt: number;
  /** Prompt tokens prefilled so far (chunked by the per-step token budget). */
  computed: number;
  output: number[];
  /** KV blocks currently held. */
  blocks: number;
  /** Events not yet delivered with an output: 1 QUEUED, 2 SCHEDULED, 3 PREEMPTED. */
  pendingEvents: { type: number; timestamp: number }[];
  /** True until the first output after a (re)scheduled prefill has been sent. */
  needsPrefillStats: boolean;
  promptLogprobsSent: boolean;
}

export function toLive(req: MockRequest, now: number): LiveRequest {
  return {
    ...req,
    queuedAt: now,
    computed: 0,
    output: [],
    blocks: 0,
    pendingEvents: [{ type: 1, timestamp: now }],
    needsPrefillStats: true,
    promptLogprobsSent: false,
  };
}

/** FinishReason values on the wire (wire-vllm §5.4). */
export const FINISH = { STOP: 0, LENGTH: 1, ABORT: 2, ERROR: 3 } as const;

export interface StopResult {
  finish: number;
  stopReason: number | null;
}

/**
 * vLLM's stop check after a token was appended (Errata 3 order): the min_tokens gate, then EOS,
 * then stop ids, then length. Length also applies below min_tokens, otherwise a request whose
 * context fills up before min_tokens would never end.
 */
export function checkStop(req: LiveRequest, maxModelLen: number): StopResult | null {
  const s = req.sampling;
  const n = req.output.length;
  const last = req.output[n - 1];
  if (n >= s.minTokens) {
    // The brief asks for the older engine rule (ignore_eos honoured); current vLLM leaves that to
    // the frontend by withholding _eos_token_id (Errata 2), which this rule is compatible with.
    if (!s.ignoreEos && s.eosTokenId !== null && last === s.eosTokenId) return { finish: FINISH.STOP, stopReason: null };
    if (s.stopTokenIds.includes(last)) return { finish: FINISH.STOP, stopReason: last };
  }
  if (n >= s.maxTokens || req.prompt.length + n >= maxModelLen) return { finish: FINISH.LENGTH, stopReason: null };
  return null;
}
