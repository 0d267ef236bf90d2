import type { RouteDeps } from '../../gateway/route-deps.js';
import { loadModelContext } from '../model-context.js';
import { createChatHandler } from './chat-handler.js';
import { createCompletionHandler } from './completion-handler.js';

/** The request pipeline as the gateway plugs it in. */
export function pipelineRouteDeps(): RouteDeps {
  return {
    inference: { chat_completions: createChatHandler(), completions: createCompletionHandler() },
    loadTokenizer: loadModelContext,
  };
}
