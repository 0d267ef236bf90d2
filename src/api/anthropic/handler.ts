/**
 * POST /v1/messages (Anthropic body → the pipeline's chat request → JSON or Anthropic SSE) and
 * POST /v1/messages/count_tokens (the same conversion and template render, no engine).
 * `anthropic-version` and `anthropic-beta` headers are accepted and not checked: there is one
 * protocol version here.
 */
import { PipelineError } from '../../pipeline/errors.js';
import { countChatPromptTokens, prepareChat } from '../../pipeline/prepare-chat.js';
import { readJsonBody } from '../json-body.js';
import { requestRecord } from '../request-record.js';
import { respond } from '../respond.js';
import type { InferenceCall, InferenceHandler } from '../types.js';
import { messageJson } from './collect.js';
import { anthropicErrorResponse } from './errors.js';
import type { MessagesMeta } from './message-shape.js';
import { parseMessagesRequest } from './request.js';
import { serverToolTypes } from './tools.js';
import { messagesSse } from './sse.js';
import { tracePhase } from '../../tracing/request-trace.js';

/** Every PipelineError becomes Anthropic's error envelope (with the request id, as Anthropic sends). */
function withAnthropicErrors(handle: (call: InferenceCall) => Promise<Response>): InferenceHandler {
  return async (call) => {
    try {
      return await handle(call);
    } catch (err) {
      if (err instanceof PipelineError) return anthropicErrorResponse(err, call.requestId);
      throw err;
    }
  };
}

export function createMessagesHandler(): InferenceHandler {
  return withAnthropicErrors(async (call) => {
    const body = await readJsonBody(call.request);
    const req = tracePhase('validation', () => parseMessagesRequest(body));
    const dropped = serverToolTypes(body);
    if (dropped.length > 0) requestRecord(call.request).notes.push(`dropped server tools: ${dropped.join(', ')}`);
    const prepared = await prepareChat(call.services, req, call.requestId);
    const meta: MessagesMeta = { id: prepared.id, model: prepared.model, promptTokens: prepared.promptTokens };
    return await respond(call, prepared, {
      endpoint: 'messages',
      choices: 1,
      perPrompt: 1,
      sse: () => messagesSse(meta),
      json: (c) => messageJson(c, meta),
      error: (err) => anthropicErrorResponse(err, call.requestId),
    });
  });
}

export function createCountTokensHandler(): InferenceHandler {
  return withAnthropicErrors(async (call) => {
    const req = parseMessagesRequest(await readJsonBody(call.request), { countOnly: true });
    return Response.json({ input_tokens: await countChatPromptTokens(call.services, req) }, { headers: { 'x-request-id': call.requestId } });
  });
}
