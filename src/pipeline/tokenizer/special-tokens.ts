/**
 * The special-token strings a chat template sees as `bos_token`, `eos_token`, `unk_token` and
 * `pad_token` (request-pipeline.md §4.3).
 */

export interface SpecialTokenStrings {
  bos: string | null;
  eos: string | null;
  unk: string | null;
  pad: string | null;
}

// Conventional spellings, tried in order when the configs name none (§4.3).
const VOCAB_FALLBACKS: Record<keyof SpecialTokenStrings, string[]> = {
  bos: ['<s>', '<|startoftext|>', '<BOS>', '[CLS]'],
  eos: ['</s>', '<|endoftext|>', '<EOS>', '[SEP]'],
  unk: ['<unk>', '<UNK>', '[UNK]'],
  pad: ['<pad>', '<PAD>', '[PAD]'],
};

/** Configs write a token either as a plain string or as an AddedToken object `{content: …}`. */
function tokenString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return null;
}

/**
 * tokenizer_config.json wins, then special_tokens_map.json (older repos keep them only there),
 * then the first conventional spelling among the added tokens.
 *
 * Two deliberate differences from SMG: an explicit `null` (Qwen's `"bos_token": null`) means "none",
 * as in transformers, whose behaviour templates are written against; and the fallback only looks at
 * added tokens, because Qwen's plain BPE vocab happens to contain the text `<s>`.
 */
export function resolveSpecialTokens(
  tokenizerConfig: Record<string, unknown> | null,
  specialTokensMap: Record<string, unknown> | null,
  isAddedToken: (token: string) => boolean,
): SpecialTokenStrings {
  const pick = (kind: keyof SpecialTokenStrings): string | null => {
    const key = `${kind}_token`;
    for (const config of [tokenizerConfig, specialTokensMap]) {
      if (config && key in config) return tokenString(config[key]);
    }
    return VOCAB_FALLBACKS[kind].find(isAddedToken) ?? null;
  };
  return { bos: pick('bos'), eos: pick('eos'), unk: pick('unk'), pad: pick('pad') };
}
