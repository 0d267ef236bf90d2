/** POST /v1/chat/completions: OpenAI body → the pipeline's chat request → JSON or SSE. */
import { prepareChat } from '../../pipeline/prepare-chat.js';
import { readJsonBody } from '../json-body.js';
import { respond, withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { parseChatRequest } from './chat-request.js';
import { type ChatMeta, chatJson, chatSse } from './chat-respond.js';
import { openaiErrorResponse } from './errors.js';
import { tracePhase } from '../../tracing/request-trace.js';

export function createChatHandler(): InferenceHandler {
  return withErrors(openaiErrorResponse, async (call) => {
    const body = await readJsonBody(call.request);
    const req = tracePhase('validation', () => parseChatRequest(body));
    const prepared = await prepareChat(call.services, req, call.requestId);
    // The fields the encoders read, not a copy of the whole prepared generation.
    const meta: ChatMeta = {
      id: prepared.id,
      created: prepared.created,
      model: prepared.model,
      n: prepared.n,
      tokenizer: prepared.tokenizer,
      topLogprobs: prepared.topLogprobs,
      includeUsage: req.includeUsage,
    };
    // `return await`: returning the promise itself from an async function costs two more ticks.
    return await respond(call, prepared, {
      endpoint: 'chat_completions',
      choices: meta.n,
      perPrompt: meta.n,
      sse: () => chatSse(meta),
      json: (c) => chatJson(c, meta),
      error: openaiErrorResponse,
    });
  });
}
