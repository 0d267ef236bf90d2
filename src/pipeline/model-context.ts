import type { Logger } from '../util/logger.js';
import type { TokenizerSource } from '../workers/tokenizer-registry.js';
import { ChatTemplate, ChatTemplateError } from './chat-prompt/chat-template.js';
import type { Decoder } from './detokenizer.js';
import { isHarmonyModel } from './harmony/detect.js';
import type { PromptPool } from './prompt-pool/pool.js';
import { startPromptPool } from './prompt-pool/start.js';
import { primePromptBound } from './prompt-length-bound.js';
import { loadTokenizer, type LoadedTokenizer } from './tokenizer/index.js';

/** What the pipeline keeps per served model: its tokenizer and compiled chat template. */
export interface ModelContext {
  tokenizer: LoadedTokenizer;
  /** Null when the model has no usable template; chat requests then fail with `templateError`. */
  template: ChatTemplate | null;
  templateError: string | null;
  /**
   * gpt-oss: prompts are rendered in OpenAI's Harmony format instead of a chat template and the
   * output is read by channel (request-pipeline §11.6). An explicit chat template overrides it.
   */
  harmony: boolean;
  /**
   * Worker threads that render and encode big prompts off the event loop. Absent (fakes in
   * tests) or with no thread ready, prompts are prepared on the event loop.
   */
  prompts?: PromptPool | null;
}

/** The tokenizer loader the gateway calls when a model's first worker registers. */
export async function loadModelContext(src: TokenizerSource, logger?: Logger): Promise<ModelContext> {
  const tokenizer = await loadTokenizer(src.source, src.chatTemplate ? { chatTemplate: src.chatTemplate } : {});
  // Build the byte-level decode table now (~50 ms for a 150k vocab) rather than on the first request.
  (tokenizer as Decoder).byteLevelVocab?.();
  primePromptBound(tokenizer);
  const config = tokenizer.modelConfig ?? {};
  const harmony =
    !src.chatTemplate &&
    isHarmonyModel({
      modelType: typeof config.model_type === 'string' ? config.model_type : null,
      architectures: Array.isArray(config.architectures) ? config.architectures.filter((a): a is string => typeof a === 'string') : [],
      modelId: src.modelId,
    });
  let template: ChatTemplate | null = null;
  let templateError: string | null = null;
  try {
    template = ChatTemplate.compile(tokenizer.chatTemplate, tokenizer, { contentFormat: src.chatTemplateContentFormat ?? 'auto' });
    if (template.interpretedBecause !== null) {
      logger?.warn(
        `Chat template of model ${src.modelId} renders with @huggingface/jinja's interpreter (${template.interpretedBecause}); its prompts may differ from vLLM's (docs/reference/template-differences.md)`,
      );
    }
  } catch (err) {
    if (!(err instanceof ChatTemplateError)) throw err;
    templateError = err.message;
  }
  // Harmony prompts are rendered on the loop (plain string building) and only encoded there.
  const prompts = startPromptPool(tokenizer, harmony ? null : template, {
    onEvent: (event) => {
      if (event.kind === 'ready') {
        const note = event.note ? ` (${event.note})` : '';
        logger?.info(`Prompt thread ready for model ${src.modelId} (encoder ${event.encoder})${note}`);
      } else {
        logger?.warn(`Prompt thread for model ${src.modelId} stopped: ${event.message}; its prompts are prepared on the event loop until a new thread is ready`);
      }
    },
  });
  return { tokenizer, template, templateError, harmony, prompts };
}
