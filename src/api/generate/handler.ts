/** POST /generate: SGLang-style body → a one-prompt completion → SGLang's JSON array or SSE. */
import { prepareCompletion } from '../../pipeline/prepare-completion.js';
import { readJsonBody } from '../json-body.js';
import { respond, withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { openaiErrorResponse } from '../openai/errors.js';
import { generateModel, parseGenerateRequest } from './request.js';
import { type GenerateMeta, generateJson, generateSse } from './respond.js';
import { tracePhase } from '../../tracing/request-trace.js';

export function createGenerateHandler(): InferenceHandler {
  return withErrors(openaiErrorResponse, async (call) => {
    const startedAt = performance.now();
    const body = await readJsonBody(call.request);
    const { completion, returnLogprob, incremental } = tracePhase('validation', () =>
      parseGenerateRequest(body, generateModel(body, call.services.workers.modelIds())),
    );
    const prepared = { ...(await prepareCompletion(call.services, completion, call.requestId)), tokenIds: true };
    const meta: GenerateMeta = {
      id: prepared.id,
      n: prepared.n,
      returnLogprob,
      startedAt,
      incremental: incremental ?? call.services.config.incrementalStreamingOutput,
    };
    return await respond(call, prepared, {
      endpoint: 'generate',
      choices: meta.n,
      perPrompt: meta.n,
      sse: () => generateSse(meta),
      json: (c) => generateJson(c, meta),
      error: openaiErrorResponse,
    });
  });
}
