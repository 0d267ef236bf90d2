import { loadModelContext } from '../pipeline/model-context.js';
import type { ApiDeps } from './types.js';
import { createCountTokensHandler, createMessagesHandler } from './anthropic/handler.js';
import { createChatHandler } from './openai/chat-handler.js';
import { createGenerateHandler } from './generate/handler.js';
import { createCompletionHandler } from './openai/completion-handler.js';
import { createResponsesHandler } from './responses/handler.js';
import { createDetokenizeHandler, createTokenizeHandler } from './openai/tokenize-handler.js';

/** Every protocol front-end, as the gateway plugs them in. */
export function apiDeps(): ApiDeps {
  return {
    inference: {
      chat_completions: createChatHandler(),
      completions: createCompletionHandler(),
      messages: createMessagesHandler(),
      messages_count_tokens: createCountTokensHandler(),
      responses: createResponsesHandler(),
      generate: createGenerateHandler(),
      tokenize: createTokenizeHandler(),
      detokenize: createDetokenizeHandler(),
    },
    loadTokenizer: loadModelContext,
  };
}
