/** POST /v1/responses: Responses body → the pipeline's chat request → a response object or its event stream. */
import { uuidv7 } from '../../pipeline/ids.js';
import { prepareChat } from '../../pipeline/prepare-chat.js';
import { readJsonBody } from '../json-body.js';
import { respond, withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { openaiErrorResponse } from '../openai/errors.js';
import { parseResponsesRequest } from './request.js';
import { responseJson, responseSse } from './respond.js';
import type { ResponseMeta } from './response-object.js';
import { tracePhase } from '../../tracing/request-trace.js';

export function createResponsesHandler(): InferenceHandler {
  return withErrors(openaiErrorResponse, async (call) => {
    const body = await readJsonBody(call.request);
    const { chat, echo } = tracePhase('validation', () => parseResponsesRequest(body));
    const prepared = await prepareChat(call.services, chat, call.requestId);
    const meta: ResponseMeta = {
      responseId: `resp_${uuidv7().replaceAll('-', '')}`,
      chatId: prepared.id,
      created: prepared.created,
      model: prepared.model,
      echo,
    };
    return respond(call, prepared, {
      endpoint: 'responses',
      choices: 1,
      perPrompt: 1,
      sse: () => responseSse(meta),
      json: (c) => responseJson(c, meta),
      error: openaiErrorResponse,
    });
  });
}
