/**
 * What the rest of the gateway may ask of a tokenizer. An interface rather than the concrete class
 * so that route and pipeline tests can hand in small fakes.
 */
export interface LoadedTokenizer {
  /** The source string it was loaded from (directory or hub id), for messages and registry keys. */
  readonly source: string;
  /** Local directory the files were read from (the hub snapshot directory for hub ids). */
  readonly directory: string;
  /** One past the largest id the tokenizer knows (model vocab plus added tokens). */
  readonly vocabSize: number;
  /** Ids skipped by `decode(ids, true)`: added tokens marked special plus additional_special_tokens. */
  readonly specialTokenIds: ReadonlySet<number>;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly unkToken: string | null;
  readonly padToken: string | null;
  /** All EOS ids, primary first (request-pipeline.md §5.4). */
  readonly eosTokenIds: readonly number[];
  readonly primaryEosTokenId: number | null;
  /** Template source chosen per §4.1, or null when the model has none. */
  readonly chatTemplate: string | null;
  /** Where `chatTemplate` came from (a file path, `tokenizer_config.json`, or `inline`). */
  readonly chatTemplateOrigin: string | null;
  /** tokenizer_config `model_max_length`, else config.json `max_position_embeddings`; null if unknown. */
  readonly modelMaxLength: number | null;
  /** Parsed config.json / generation_config.json / tokenizer_config.json, when present. */
  readonly modelConfig: Readonly<Record<string, unknown>> | null;
  readonly generationConfig: Readonly<Record<string, unknown>> | null;
  readonly tokenizerConfig: Readonly<Record<string, unknown>> | null;
  /**
   * Added tokens after which a text may be cut and the pieces encoded apart with the same ids
   * (cut-tokens.ts); absent or empty when none is safe.
   */
  readonly cutTokens?: readonly string[];

  /** Rendered prompts already carry their BOS, so special tokens are not added unless asked. */
  encode(text: string, addSpecialTokens?: boolean): number[];
  /** What `encode(text, false)` runs: the fast ids-only encoder (fast-bpe/) or the JS library. */
  readonly encoder?: 'fast' | 'js';
  /** Never throws on empty input; never applies clean_up_tokenization_spaces. */
  decode(ids: readonly number[], skipSpecialTokens: boolean): string;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
}

export interface LoadTokenizerOptions {
  /**
   * Explicit chat template (`--chat-template` or a model card): a file path, or the template text
   * itself when no such file exists and it looks like Jinja. Wins over everything in the directory.
   */
  chatTemplate?: string;
  /** Hub revision (branch, tag or commit); default `main`. */
  revision?: string;
  /** Environment to read HF_HOME / HF_HUB_CACHE / HF_ENDPOINT / HF_TOKEN / HF_HUB_OFFLINE from. */
  env?: NodeJS.ProcessEnv;
  /** Per-file download timeout; default 120 s (real tokenizer.json files are 10–30 MB). */
  downloadTimeoutMs?: number;
  /** Called once per file actually fetched from the hub, for progress logging. */
  onDownload?: (file: string, bytes: number) => void;
}
