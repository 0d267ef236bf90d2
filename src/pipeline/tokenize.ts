/**
 * /tokenize and /detokenize as vLLM's server answers them (vllm-project/vllm
 * vllm/entrypoints/openai/serving_tokenization.py): a prompt, or chat messages rendered with the
 * model's chat template, to token ids; token ids back to text. No worker is involved, only the
 * model's tokenizer.
 */
import { invalid } from './errors.js';
import { modelContextFor, resolveRequestModel } from './model-lookup.js';
import { chatPromptIds } from './prepare-chat.js';
import type { ChatGenerationRequest } from './request.js';
import type { PipelineServices } from './services.js';

export interface TokenizeResult {
  count: number;
  /** The engines' context length (the model config's before any handshake); null when unknown. */
  max_model_len: number | null;
  tokens: number[];
  /** The token strings, when asked for (`return_token_strs`); else null. */
  token_strs: string[] | null;
}

export type TokenizeInput =
  | { kind: 'prompt'; model: string; prompt: string; addSpecialTokens: boolean; returnTokenStrs: boolean }
  | { kind: 'chat'; chat: ChatGenerationRequest; returnTokenStrs: boolean };

export async function tokenize(services: PipelineServices, input: TokenizeInput): Promise<TokenizeResult> {
  let model: string;
  let tokens: number[];
  let tokenizer;
  if (input.kind === 'prompt') {
    model = resolveRequestModel(services, input.model);
    tokenizer = modelContextFor(services, model).tokenizer;
    tokens = tokenizer.encode(input.prompt, input.addSpecialTokens);
  } else {
    const r = await chatPromptIds(services, input.chat);
    model = r.model;
    tokenizer = r.ctx.tokenizer;
    tokens = r.promptIds;
  }
  return {
    count: tokens.length,
    max_model_len: maxModelLen(services, model, tokenizer.modelConfig),
    tokens,
    token_strs: input.returnTokenStrs ? tokens.map((id) => tokenizer.idToToken(id) ?? '') : null,
  };
}

export function detokenize(services: PipelineServices, requested: string, tokens: readonly number[]): { prompt: string } {
  const model = resolveRequestModel(services, requested);
  const { tokenizer } = modelContextFor(services, model);
  for (const id of tokens) {
    if (id >= tokenizer.vocabSize) throw invalid(`tokens: token id ${id} is out of vocabulary (size ${tokenizer.vocabSize})`, 'tokens');
  }
  // vLLM's detokenize keeps special tokens (HF decode's default).
  return { prompt: tokenizer.decode(tokens, false) };
}

function maxModelLen(services: PipelineServices, model: string, config: Readonly<Record<string, unknown>> | null): number | null {
  const fromEngine = services.workers.maxModelLen(model);
  if (fromEngine !== null) return fromEngine;
  const v = config?.max_position_embeddings;
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null;
}
