/**
 * POST /generate (SGLang-style, request-pipeline §3.5): exactly one of `text` / `input_ids`, and
 * `sampling_params` with SGLang's names. It becomes a one-prompt completion request.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { CompletionGenerationRequest, PromptInput } from '../../pipeline/request.js';
import { type Body, asBody, optBool, optNumber, optObject, optString } from '../openai/fields.js';
import { parseSamplingRequest } from '../openai/sampling-request.js';

export interface GenerateRequest {
  completion: CompletionGenerationRequest;
  /** `return_logprob`: report each generated token's logprob in `meta_info`. */
  returnLogprob: boolean;
  /**
   * `incremental_streaming_output`: streamed chunks carry only that step's text; undefined = the
   * gateway's --incremental-streaming-output. SGLang has the server flag only; the per-request
   * field lets one client opt in without changing what other clients of the gateway see.
   */
  incremental: boolean | undefined;
}

const resolveFailed = (message: string) => new PipelineError(400, 'resolve_input_failed', message, true);

export function parseGenerateRequest(raw: unknown, model: string): GenerateRequest {
  const body = asBody(raw);
  const prompt = promptOf(body);
  const sp = optObject(body, 'sampling_params') ?? {};
  // SGLang's sampling names mapped onto the shared OpenAI-style reader, so validation and
  // texts match the other endpoints.
  const mapped: Body = {
    max_tokens: sp.max_new_tokens,
    min_tokens: sp.min_new_tokens,
    temperature: sp.temperature,
    top_p: sp.top_p,
    top_k: sp.top_k,
    min_p: sp.min_p,
    frequency_penalty: sp.frequency_penalty,
    presence_penalty: sp.presence_penalty,
    repetition_penalty: sp.repetition_penalty,
    stop: sp.stop,
    stop_token_ids: sp.stop_token_ids,
    ignore_eos: sp.ignore_eos,
    skip_special_tokens: sp.skip_special_tokens,
    no_stop_trim: sp.no_stop_trim,
    n: sp.n,
    seed: sp.sampling_seed ?? sp.seed,
    regex: sp.regex,
    ebnf: sp.ebnf,
    json_schema: typeof sp.json_schema === 'object' && sp.json_schema !== null ? JSON.stringify(sp.json_schema) : sp.json_schema,
    stream: body.stream,
    rid: body.rid,
    // SGLang's GenerateReqInput.priority is top-level, not a sampling parameter.
    priority: body.priority,
  };
  const names = { ...GENERATE_NAMES, seed: sp.sampling_seed !== undefined && sp.sampling_seed !== null ? 'sampling_params.sampling_seed' : 'sampling_params.seed' };
  const sampling = renamed(names, () => parseSamplingRequest(mapped, { maxTokenKeys: ['max_tokens'], maxN: 128 }));
  const returnLogprob = optBool(body, 'return_logprob') ?? false;
  const topLogprobsNum = optNumber(body, 'top_logprobs_num', { min: 0, max: 20, integer: true }) ?? 0;
  const tokenIdsLogprob = body.token_ids_logprob;
  if (Array.isArray(tokenIdsLogprob) && tokenIdsLogprob.length > 0) {
    throw invalid('token_ids_logprob: prompt logprobs are not supported over the ZMQ backend', 'token_ids_logprob');
  }
  return {
    // Sampling fields last, so V8 builds a fast object (openai/chat-request.ts says why).
    completion: {
      model,
      prompts: [prompt],
      echo: false,
      suffix: undefined,
      logprobs: returnLogprob ? topLogprobsNum : undefined,
      ...sampling,
    },
    returnLogprob,
    incremental: optBool(body, 'incremental_streaming_output'),
  };
}

/** The /generate name of each OpenAI-style key the shared reader reports. */
const GENERATE_NAMES: Record<string, string> = {
  max_tokens: 'sampling_params.max_new_tokens',
  min_tokens: 'sampling_params.min_new_tokens',
  temperature: 'sampling_params.temperature',
  top_p: 'sampling_params.top_p',
  top_k: 'sampling_params.top_k',
  min_p: 'sampling_params.min_p',
  frequency_penalty: 'sampling_params.frequency_penalty',
  presence_penalty: 'sampling_params.presence_penalty',
  repetition_penalty: 'sampling_params.repetition_penalty',
  stop: 'sampling_params.stop',
  stop_token_ids: 'sampling_params.stop_token_ids',
  ignore_eos: 'sampling_params.ignore_eos',
  skip_special_tokens: 'sampling_params.skip_special_tokens',
  no_stop_trim: 'sampling_params.no_stop_trim',
  n: 'sampling_params.n',
  regex: 'sampling_params.regex',
  ebnf: 'sampling_params.ebnf',
  json_schema: 'sampling_params.json_schema',
};

/** Validation failures of the shared reader, re-worded with the field names a /generate client sent. */
function renamed<T>(names: Record<string, string>, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof PipelineError) || err.param === null) throw err;
    const name = names[err.param];
    if (name === undefined) throw err;
    const message = err.message.startsWith(`${err.param}: `) ? `${name}: ${err.message.slice(err.param.length + 2)}` : err.message;
    throw new PipelineError(err.status, err.code, message, err.validation, name);
  }
}

function promptOf(body: Body): PromptInput {
  const text = body.text;
  const ids = body.input_ids;
  const hasText = text !== undefined && text !== null;
  const hasIds = ids !== undefined && ids !== null;
  if (hasText === hasIds) {
    throw resolveFailed(hasText ? 'Provide exactly one of `text` or `input_ids`, not both' : 'Either `text` or `input_ids` must be provided');
  }
  if (hasText) {
    if (Array.isArray(text)) throw resolveFailed('Batch text input is not supported over ZMQ generate yet');
    if (typeof text !== 'string') throw invalid('text: must be a string', 'text');
    return { text };
  }
  if (!Array.isArray(ids)) throw invalid('input_ids: must be an array of token ids', 'input_ids');
  if (ids.some((x) => Array.isArray(x))) throw resolveFailed('Batch input_ids are not supported over gRPC generate yet');
  if (!ids.every((x) => Number.isSafeInteger(x))) throw invalid('input_ids: must be an array of integer token ids', 'input_ids');
  if (ids.some((x) => (x as number) < 0)) throw resolveFailed('input_ids must be non-negative');
  if (ids.length === 0) throw resolveFailed('input_ids must not be empty');
  return { tokenIds: ids as number[] };
}

/** The model a /generate request runs on: `model` if given, else the only served model. */
export function generateModel(body: unknown, served: readonly string[]): string {
  const model = body !== null && typeof body === 'object' && !Array.isArray(body) ? optString(body as Body, 'model') : undefined;
  if (model) return model;
  const distinct = [...new Set(served)];
  if (distinct.length === 1) return distinct[0];
  if (distinct.length === 0) throw new PipelineError(503, 'no_available_workers', 'No model is served yet');
  throw invalid(`model: required when more than one model is served (${distinct.join(', ')})`, 'model');
}
