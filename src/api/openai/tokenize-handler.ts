/**
 * POST /tokenize and POST /detokenize, with vLLM's request and response shapes
 * (vllm-project/vllm vllm/entrypoints/openai/protocol.py: TokenizeCompletionRequest,
 * TokenizeChatRequest, DetokenizeRequest). `model` is optional, as in vLLM: the only served model.
 * A body with `messages` is rendered with the chat template (special tokens not added by
 * default); a `prompt` is encoded with special tokens by default.
 */
import { invalid } from '../../pipeline/errors.js';
import { detokenize, tokenize } from '../../pipeline/tokenize.js';
import { readJsonBody } from '../json-body.js';
import { withErrors } from '../respond.js';
import type { InferenceHandler } from '../types.js';
import { parseChatRequest } from './chat-request.js';
import { openaiErrorResponse as errorsAsOpenAi } from './errors.js';
import { asBody, optBool, optString } from './fields.js';

export function createTokenizeHandler(): InferenceHandler {
  return withErrors(errorsAsOpenAi, async (call) => {
    const body = asBody(await readJsonBody(call.request));
    const returnTokenStrs = optBool(body, 'return_token_strs') ?? false;
    if (body.messages !== undefined && body.messages !== null) {
      const chat = parseChatRequest(body);
      return Response.json(await tokenize(call.services, { kind: 'chat', chat, returnTokenStrs }));
    }
    const prompt = optString(body, 'prompt');
    if (prompt === undefined) throw invalid('either prompt or messages must be provided', 'prompt');
    const addSpecialTokens = optBool(body, 'add_special_tokens') ?? true;
    const model = optString(body, 'model') ?? '';
    return Response.json(await tokenize(call.services, { kind: 'prompt', model, prompt, addSpecialTokens, returnTokenStrs }));
  });
}

export function createDetokenizeHandler(): InferenceHandler {
  return withErrors(errorsAsOpenAi, async (call) => {
    const body = asBody(await readJsonBody(call.request));
    const tokens = body.tokens;
    if (!Array.isArray(tokens) || !tokens.every((t) => Number.isSafeInteger(t) && (t as number) >= 0)) {
      throw invalid('tokens: must be an array of non-negative integer token ids', 'tokens');
    }
    return Response.json(detokenize(call.services, optString(body, 'model') ?? '', tokens as number[]));
  });
}
