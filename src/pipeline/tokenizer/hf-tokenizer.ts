/**
 * LoadedTokenizer over @huggingface/tokenizers (pure JS). Hides the library's traps
 * (ecosystem.md §1.6): `decode([])` throws, `add_special_tokens` defaults to true, and
 * clean_up_tokenization_spaces comes from the config (Llama 3 sets it, which rewrites " ." to ".").
 * Prompts (add_special_tokens false) are encoded by the fast ids-only encoder (fast-bpe/) when it
 * supports the tokenizer and reproduced the library on the parity probes at load.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { ChatTemplateSource } from '../chat-prompt/chat-template-source.js';
import type { EosIds } from '../eos.js';
import { buildByteLevelVocab, type ByteLevelVocab } from './byte-level.js';
import type { FastBpeEncoder } from './fast-bpe/index.js';
import type { SpecialTokenStrings } from './special-tokens.js';
import type { LoadedTokenizer } from './types.js';

export interface HfTokenizerParts {
  source: string;
  directory: string;
  tokenizer: Tokenizer;
  tokenizerConfig: Record<string, unknown> | null;
  modelConfig: Record<string, unknown> | null;
  generationConfig: Record<string, unknown> | null;
  special: SpecialTokenStrings;
  eos: EosIds;
  template: ChatTemplateSource | null;
  cutTokens: readonly string[];
  /** The verified fast encoder, or why there is none. */
  fast: { encoder: FastBpeEncoder } | { refused: string };
}

// HF writes int(1e30) as model_max_length when it does not know the limit.
const UNKNOWN_LENGTH_SENTINEL = 1e15;

function positiveInt(value: unknown): number | null {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) < UNKNOWN_LENGTH_SENTINEL
    ? (value as number)
    : null;
}

export class HfTokenizer implements LoadedTokenizer {
  readonly source: string;
  readonly directory: string;
  readonly vocabSize: number;
  readonly specialTokenIds: ReadonlySet<number>;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly unkToken: string | null;
  readonly padToken: string | null;
  readonly eosTokenIds: readonly number[];
  readonly primaryEosTokenId: number | null;
  readonly chatTemplate: string | null;
  readonly chatTemplateOrigin: string | null;
  readonly modelMaxLength: number | null;
  readonly modelConfig: Readonly<Record<string, unknown>> | null;
  readonly generationConfig: Readonly<Record<string, unknown>> | null;
  readonly tokenizerConfig: Readonly<Record<string, unknown>> | null;
  readonly cutTokens: readonly string[];
  /** Why `encoder` is not the fast one (null when it is). */
  readonly encoderNote: string | null;
  private readonly tok: Tokenizer;
  private readonly fast: FastBpeEncoder | null;
  private byteLevel: ByteLevelVocab | null | undefined;

  /** Which encoder `encode(text, false)` runs: the fast one, or the library's. */
  get encoder(): 'fast' | 'js' {
    return this.fast ? 'fast' : 'js';
  }

  constructor(parts: HfTokenizerParts) {
    this.tok = parts.tokenizer;
    this.fast = 'encoder' in parts.fast ? parts.fast.encoder : null;
    this.encoderNote = 'refused' in parts.fast ? `the fast encoder is not used: ${parts.fast.refused}` : null;
    this.source = parts.source;
    this.directory = parts.directory;
    this.tokenizerConfig = parts.tokenizerConfig;
    this.modelConfig = parts.modelConfig;
    this.generationConfig = parts.generationConfig;
    this.bosToken = parts.special.bos;
    this.eosToken = parts.special.eos;
    this.unkToken = parts.special.unk;
    this.padToken = parts.special.pad;
    this.eosTokenIds = Object.freeze([...parts.eos.ids]);
    this.primaryEosTokenId = parts.eos.primary;
    this.cutTokens = Object.freeze([...parts.cutTokens]);
    this.chatTemplate = parts.template?.source ?? null;
    this.chatTemplateOrigin = parts.template?.origin ?? null;
    this.modelMaxLength =
      positiveInt(parts.tokenizerConfig?.model_max_length) ??
      positiveInt(parts.modelConfig?.max_position_embeddings);

    let maxId = -1;
    for (const id of this.tok.get_vocab(true).values()) if (id > maxId) maxId = id;
    this.vocabSize = maxId + 1;
    this.specialTokenIds = this.collectSpecialIds(parts.tokenizerConfig);
  }

  private collectSpecialIds(config: Record<string, unknown> | null): Set<number> {
    const ids = new Set<number>();
    for (const [id, token] of this.tok.get_added_tokens_decoder()) if (token.special) ids.add(id);
    // The library also skips these when decoding, so the set must agree with decode().
    const extra = config?.additional_special_tokens;
    if (Array.isArray(extra)) {
      for (const entry of extra) {
        const content = typeof entry === 'string' ? entry : (entry as { content?: unknown })?.content;
        const id = typeof content === 'string' ? this.tok.token_to_id(content) : undefined;
        if (id !== undefined) ids.add(id);
      }
    }
    return ids;
  }

  encode(text: string, addSpecialTokens = false): number[] {
    if (text === '') return [];
    if (!addSpecialTokens && this.fast !== null) return this.fast.encode(text);
    return this.tok.encode(text, { add_special_tokens: addSpecialTokens }).ids;
  }

  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    if (ids.length === 0) return '';
    // The library only reads the array; the cast avoids copying the caller's readonly view.
    return this.tok.decode(ids as number[], {
      skip_special_tokens: skipSpecialTokens,
      clean_up_tokenization_spaces: false,
    });
  }

  /**
   * Per-id byte table for the detokenizer's streaming path, or null when the decoder is not plain
   * ByteLevel. Built on first use (tens of ms for a 150k vocab) rather than on every load.
   */
  byteLevelVocab(): ByteLevelVocab | null {
    if (this.byteLevel === undefined) {
      try {
        this.byteLevel = buildByteLevelVocab(this.tok, this.tokenizerConfig);
      } catch {
        // Only an optimisation: a tokenizer.json it trips over still decodes through the library.
        this.byteLevel = null;
      }
    }
    return this.byteLevel;
  }

  idToToken(id: number): string | undefined {
    return this.tok.id_to_token(id);
  }

  tokenToId(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }
}
