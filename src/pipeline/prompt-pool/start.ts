/** The prompt pool of a freshly loaded model. */
import type { ChatTemplate } from '../chat-prompt/chat-template.js';
import type { LoadedTokenizer } from '../tokenizer/index.js';
import { PromptPool, type PromptPoolOptions } from './pool.js';
import { parityProbes } from './probes.js';
import type { EncoderKind } from './protocol.js';

export function startPromptPool(
  tokenizer: LoadedTokenizer,
  template: ChatTemplate | null,
  opts: PromptPoolOptions & { encoder?: EncoderKind } = {},
): PromptPool {
  return new PromptPool(
    {
      directory: tokenizer.directory,
      template: template && {
        source: template.source,
        specials: { bosToken: tokenizer.bosToken, eosToken: tokenizer.eosToken, unkToken: tokenizer.unkToken, padToken: tokenizer.padToken },
        // The format the gateway resolved (detected or --chat-template-content-format), so the thread renders alike.
        contentFormat: template.contentFormat,
      },
      encoder: opts.encoder ?? 'fast',
      cutTokens: [...(tokenizer.cutTokens ?? [])],
      probes: parityProbes(tokenizer, template),
    },
    opts,
  );
}
