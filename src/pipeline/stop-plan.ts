/**
 * Which request stop strings also become engine stop token ids (request-pipeline.md §5.1, §6.1).
 *
 * Rule: a non-empty stop string that encodes (add_special_tokens=false) to exactly one id is sent
 * to the engine as a stop token id, so the engine stops without wasting steps; every stop string
 * is still matched on the decoded text by the gateway, because the model may produce the same
 * text through other tokens (" the" inside " they", or split into single bytes).
 *
 * Caveat: if that one id is a special token and skip_special_tokens is on, its text never appears
 * in the decoded stream, so only the engine (or StopDecoder via `tokenStopStrings`) sees it.
 */

export interface StopPlan {
  /** All distinct non-empty stop strings, in request order; matched on decoded text. */
  textStops: string[];
  /** Ids of single-token stop strings, for the engine's stop_token_ids. */
  tokenStopIds: number[];
  /** Single-token stop id → its stop string, to report the string when that id ends output. */
  tokenStopStrings: Map<number, string>;
}

export function planStopStrings(
  stops: readonly string[] | string | null | undefined,
  tokenizer: { encode(text: string, addSpecialTokens?: boolean): number[] },
): StopPlan {
  const list = stops == null ? [] : typeof stops === 'string' ? [stops] : stops;
  const textStops = [...new Set(list.filter((s) => s.length > 0))];
  const tokenStopStrings = new Map<number, string>();
  for (const stop of textStops) {
    const ids = tokenizer.encode(stop, false);
    // The first string to claim an id keeps it, matching the dedup order of stop_token_ids.
    if (ids.length === 1 && !tokenStopStrings.has(ids[0])) tokenStopStrings.set(ids[0], stop);
  }
  return { textStops, tokenStopIds: [...tokenStopStrings.keys()], tokenStopStrings };
}
