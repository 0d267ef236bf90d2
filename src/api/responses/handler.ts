/** POST /v1/responses: Responses body → the pipeline's chat request → a response object or its event stream. */
import { uuidv7 } from '../../pipeline/ids.js';
import { modelContextFor } from '../../pipeline/model-lookup.js';
import { prepareChat } from '../../pipeline/prepare-chat.js';
import { readJsonBody } from '../json-body.js';
import { requestRecord } from '../request-record.js';
import { respond, withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { openaiErrorResponse } from '../openai/errors.js';
import { asBody } from '../openai/fields.js';
import { parseResponsesRequest } from './request.js';
import { responseJson, responseSse } from './respond.js';
import type { ResponseMeta } from './response-object.js';
import { beginTurn, saveTurn, turnWrites } from './store-turn.js';
import { tracePhase } from '../../tracing/request-trace.js';

export function createResponsesHandler(): InferenceHandler {
  return withErrors(openaiErrorResponse, async (call) => {
    // History first: the chain or conversation this turn continues becomes part of its input.
    const turn = await beginTurn(asBody(await readJsonBody(call.request)), call.history);
    const { chat, echo, tools } = tracePhase('validation', () => parseResponsesRequest(turn.body));
    // The hosted tools dropped are named in the request's access-log line.
    if (tools.dropped.length > 0) requestRecord(call.request).notes.push(`dropped hosted tools: ${tools.dropped.join(', ')}`);
    const prepared = await prepareChat(call.services, chat, call.requestId);
    const { state } = turn;
    const meta: ResponseMeta = {
      responseId: `resp_${uuidv7().replaceAll('-', '')}`,
      chatId: prepared.id,
      created: prepared.created,
      model: prepared.model,
      echo,
      origins: tools.origins,
      countTokens: (text) => modelContextFor(call.services, prepared.model).tokenizer.encode(text, false).length,
      state: { store: state.store, previousResponseId: state.previousResponseId, conversationId: state.conversationId },
    };
    const history = call.history;
    return await respond(call, prepared, {
      endpoint: 'responses',
      choices: 1,
      perPrompt: 1,
      sse: () => responseSse(meta),
      json: (c) => responseJson(c, meta),
      error: openaiErrorResponse,
      // Stored before the client sees it complete, streamed or not, so the next turn finds it.
      persist: history && turnWrites(state) ? (c) => saveTurn(history, state, responseJson(c, meta), meta.model, meta.created) : undefined,
    });
  });
}
