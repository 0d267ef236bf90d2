/**
 * How a chat request becomes prompt tokens and how its output is read: the model's chat template
 * with the reasoning/tool parsers (`chat-format-template.ts`), or Harmony for gpt-oss
 * (`chat-format-harmony.ts`). `prepareChat` runs either the same way.
 */
import type { RuntimeType, StructuredConstraint } from '../../engine/types.js';
import type { OutputPlan } from '../output/output-plan.js';

/** What a format decides once the worker (and so the engine runtime) is known. */
export interface ChatOutputDecision {
  output: OutputPlan | null;
  skipSpecialTokens: boolean;
  /** The one constraint sent to the engine (§10.1). */
  structured: StructuredConstraint | null;
  /** Stop token ids the format adds to the request's (Harmony's `<|return|>`, `<|call|>`). */
  extraStopTokenIds: readonly number[];
  /** Stop strings the gateway decoder matches on the whole text (Harmony matches them per channel instead). */
  decoderStopStrings: readonly string[];
}

export interface ChatFormat {
  promptIds: number[];
  decide(runtime: RuntimeType): ChatOutputDecision;
}
