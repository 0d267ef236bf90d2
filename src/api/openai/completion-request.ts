import { invalid } from '../../pipeline/errors.js';
import type { CompletionGenerationRequest as CompletionRequest, PromptInput } from '../../pipeline/request.js';
import { asBody, optBool, optNumber, optString } from './fields.js';
import { parseSamplingRequest } from './sampling-request.js';

function isTokenIds(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0);
}

/** Parse a /v1/completions body: a string, an array of strings, token ids, or arrays of token ids. */
export function parseCompletionRequest(raw: unknown): CompletionRequest {
  const body = asBody(raw);
  // Absent or empty: the only served model (vLLM's behaviour), resolved by the pipeline.
  const model = optString(body, 'model') ?? '';
  const sampling = parseSamplingRequest(body, { maxTokenKeys: ['max_tokens'], maxN: 128 });
  const prompts = parsePrompts(body.prompt);
  const bestOf = optNumber(body, 'best_of', { min: 1, integer: true });
  if (bestOf !== undefined) {
    if (sampling.stream) throw invalid('best_of is not supported when stream is enabled', 'best_of');
    if (bestOf < sampling.n) throw invalid('best_of must be greater than n', 'best_of');
  }
  // Accepted and not acted on, but type-checked like chat's.
  optString(body, 'user');
  // Sampling fields last, so V8 builds a fast object (chat-request.ts says why).
  return {
    model,
    prompts,
    echo: optBool(body, 'echo') ?? false,
    suffix: optString(body, 'suffix'),
    logprobs: optNumber(body, 'logprobs', { min: 0, max: 5, integer: true }),
    ...sampling,
  };
}

function parsePrompts(prompt: unknown): PromptInput[] {
  if (typeof prompt === 'string') return [{ text: prompt }];
  if (!Array.isArray(prompt)) throw invalid('prompt: must be a string, an array of strings, or token ids');
  if (prompt.length === 0) throw invalid('prompt array cannot be empty', 'prompt');
  if (isTokenIds(prompt)) return [{ tokenIds: prompt }];
  return prompt.map((p, i) => {
    if (typeof p === 'string') return { text: p };
    if (isTokenIds(p)) return { tokenIds: p };
    throw invalid(`prompt[${i}]: must be a string or a non-empty array of token ids`);
  });
}
