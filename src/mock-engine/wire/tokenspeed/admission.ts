/**
 * Engine side: the "aborted at admission" class of §4.8 as data. A fake engine calls
 * `admitTokenSpeedRequest` on every decoded ADD; a non-null verdict means "emit
 * `admissionAbortRow(req)` in a batch of its own and forget the request".
 *
 * The message text never reaches the wire (the batch has no message column); the fake logs it,
 * and tests use it to tell the reasons apart.
 */
import { samplingRangeProblem } from '../../../engine/dialects/tokenspeed/sampling-rules.js';
import type { TsAddRequest, TsOutputRow } from './types.js';

export interface TsAdmissionConfig {
  /** `--enable-output-logprobs` (default off: logprob requests are aborted, §4.5). */
  enableOutputLogprobs: boolean;
  /** `--grammar-backend` (default none: every grammar request is aborted, §4.4). */
  grammarBackend: 'none' | 'xgrammar';
  /** When known, logit_bias keys outside [0, vocab) abort the request. */
  vocabSize?: number | null;
}

export const DEFAULT_ADMISSION_CONFIG: TsAdmissionConfig = {
  enableOutputLogprobs: false,
  grammarBackend: 'none',
  vocabSize: null,
};

/** Spec wording for the logprob gate (§10.2). */
export const LOGPROBS_DISABLED_MESSAGE =
  'logprobs were requested but the server was started without --enable-output-logprobs';

/** Returns null when admitted, else the reason the engine aborts the request. */
export function admitTokenSpeedRequest(req: TsAddRequest, cfg: TsAdmissionConfig): string | null {
  if (req.validationError !== null) return req.validationError;
  if (req.sessionId !== null) return `session id ${req.sessionId} does not exist`;
  const sp = req.sampling;
  if (sp.n !== 1) return `n must be 1 on this path, got ${sp.n}`;
  if (req.returnLogprob && !cfg.enableOutputLogprobs) return LOGPROBS_DISABLED_MESSAGE;
  const range = samplingRangeProblem(sp, cfg.vocabSize ?? null);
  if (range !== null) return range;
  const anyGrammar = [sp.jsonSchema, sp.regex, sp.ebnf, sp.structuralTag].some((g) => g !== null);
  if (anyGrammar && cfg.grammarBackend === 'none') {
    return 'grammar-constrained decoding requested but the server runs --grammar-backend none';
  }
  return null;
}

/** The single terminal row an admission abort produces: no tokens, prompt length counted. */
export function admissionAbortRow(req: TsAddRequest): TsOutputRow {
  return {
    rid: req.rid,
    outputIds: [],
    finishedReason: 'abort',
    promptTokens: req.inputIds?.length ?? 0,
    completionTokens: 0,
    cachedTokens: 0,
    logprobVals: [],
    logprobIdx: [],
  };
}
