/** POST /v1/completions: OpenAI body → the pipeline's completion request → JSON or SSE. */
import { prepareCompletion } from '../../pipeline/prepare-completion.js';
import { readJsonBody } from '../json-body.js';
import { respond, withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { parseCompletionRequest } from './completion-request.js';
import { type CompletionMeta, completionJson, completionSse } from './completion-respond.js';
import { openaiErrorResponse } from './errors.js';
import { tracePhase } from '../../tracing/request-trace.js';

export function createCompletionHandler(): InferenceHandler {
  return withErrors(openaiErrorResponse, async (call) => {
    const body = await readJsonBody(call.request);
    const req = tracePhase('validation', () => parseCompletionRequest(body));
    const prepared = await prepareCompletion(call.services, req, call.requestId);
    const meta: CompletionMeta = {
      ...prepared,
      suffix: req.suffix ?? '',
      logprobs: req.logprobs ?? null,
      includeUsage: req.includeUsage,
    };
    return await respond(call, prepared, {
      endpoint: 'completions',
      choices: meta.echoText.length * meta.n,
      perPrompt: meta.n,
      sse: () => completionSse(meta),
      json: (c) => completionJson(c, meta),
      error: openaiErrorResponse,
    });
  });
}
