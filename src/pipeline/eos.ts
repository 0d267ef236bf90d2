/**
 * EOS ids (request-pipeline.md §5.4). Model configs state `eos_token_id` as an int or a list, and
 * config.json and generation_config.json often disagree (Llama 3.1 lists three ids, Qwen3's
 * generation_config adds <|endoftext|>), so the gateway takes their union.
 */

export interface EosIds {
  /** The id the engine treats as "the" EOS (vLLM `_eos_token_id`); null when nothing names one. */
  primary: number | null;
  /** Every EOS id, primary first, then the others in the order the sources list them. */
  ids: number[];
}

/** Reads an `eos_token_id` field; anything that is not a non-negative int (or list of them) yields []. */
export function parseEosField(value: unknown): number[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is number => Number.isInteger(v) && (v as number) >= 0);
}

export interface EosSources {
  /** Parsed config.json, if present. */
  config?: Record<string, unknown> | null;
  /** Parsed generation_config.json, if present. */
  generationConfig?: Record<string, unknown> | null;
  /**
   * Id of tokenizer_config.json's `eos_token`. SMG ignores it, which leaves tokenizer-only
   * directories with no EOS at all (§5.4 "Gap"); the clone uses it as the last source.
   */
  tokenizerEosId?: number | null;
}

/** Primary = first id of config.json, else of generation_config.json, else the tokenizer's eos. */
export function resolveEosIds(src: EosSources): EosIds {
  const fromConfig = parseEosField(src.config?.eos_token_id);
  const fromGeneration = parseEosField(src.generationConfig?.eos_token_id);
  const fromTokenizer = src.tokenizerEosId == null ? [] : [src.tokenizerEosId];
  const ids = [...new Set([...fromConfig, ...fromGeneration, ...fromTokenizer])];
  return { primary: ids.length > 0 ? ids[0] : null, ids };
}
