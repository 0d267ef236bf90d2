import type { TokenizerSource } from '../workers/tokenizer-registry.js';
import { ChatTemplate, ChatTemplateError } from './chat-template.js';
import type { Decoder } from './detokenizer.js';
import { loadTokenizer, type LoadedTokenizer } from './tokenizer/index.js';

/** What the pipeline keeps per served model: its tokenizer and compiled chat template. */
export interface ModelContext {
  tokenizer: LoadedTokenizer;
  /** Null when the model has no usable template; chat requests then fail with `templateError`. */
  template: ChatTemplate | null;
  templateError: string | null;
}

/** The tokenizer loader the gateway calls when a model's first worker registers. */
export async function loadModelContext(src: TokenizerSource): Promise<ModelContext> {
  const tokenizer = await loadTokenizer(src.source, src.chatTemplate ? { chatTemplate: src.chatTemplate } : {});
  // Build the byte-level decode table now (~50 ms for a 150k vocab) rather than on the first request.
  (tokenizer as Decoder).byteLevelVocab?.();
  try {
    return { tokenizer, template: ChatTemplate.compile(tokenizer.chatTemplate, tokenizer), templateError: null };
  } catch (err) {
    if (!(err instanceof ChatTemplateError)) throw err;
    return { tokenizer, template: null, templateError: err.message };
  }
}
