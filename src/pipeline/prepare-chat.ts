/**
 * A chat generation, from a protocol-neutral request to everything `generate` needs: prompt
 * (template or Harmony) → tokenize → pick a worker → build the engine sampling → fan out the
 * choices → decide how the output is read (request-pipeline §3.1.1 steps 5–12). Every chat-like
 * protocol (OpenAI chat, Anthropic Messages, Responses) goes through here.
 */
import { buildSampling, checkTopLogprobs, decodeRules } from './build-sampling.js';
import type { ChatFormat } from './chat-prompt/chat-format.js';
import { harmonyFormat } from './chat-prompt/chat-format-harmony.js';
import { renderChatPrompt, templateFormat } from './chat-prompt/chat-format-template.js';
import { fanOut } from './fan-out.js';
import type { GenerationSpec } from './generation-spec.js';
import { backendRequestId, engineRequestBase } from './ids.js';
import type { ModelContext } from './model-context.js';
import { acquireWorker, modelContextFor, resolveRequestModel } from './model-lookup.js';
import type { ChatGenerationRequest } from './request.js';
import type { PipelineServices } from './services.js';
import { planStopStrings } from './stop-plan.js';
import { filterTools } from './tools/tool-choice.js';

export interface PreparedChat extends GenerationSpec {
  /** Response id (request-pipeline §2.1). */
  id: string;
  created: number;
  n: number;
  /** Logprob candidates to show per token, or null when logprobs were not requested. */
  topLogprobs: number | null;
  promptTokens: number;
}

function chatFormat(services: PipelineServices, req: ChatGenerationRequest, ctx: ModelContext): Promise<ChatFormat> {
  const tools = req.tools ? filterTools(req.tools, req.toolSelection) : undefined;
  return ctx.harmony ? harmonyFormat(req, ctx, tools, services.workers.largestModelLen?.(req.model) ?? null) : templateFormat(services, req, ctx, tools);
}

/**
 * The templated prompt's length for a chat request, tools filtered as `prepareChat` does; no worker
 * is picked and no engine is involved (Anthropic's count_tokens).
 */
export async function countChatPromptTokens(services: PipelineServices, asked: ChatGenerationRequest): Promise<number> {
  return (await chatPromptIds(services, asked)).promptIds.length;
}

/** The templated (or Harmony-rendered) prompt of a chat request and the canonical model id. */
export async function chatPromptIds(
  services: PipelineServices,
  asked: ChatGenerationRequest,
): Promise<{ model: string; ctx: ModelContext; promptIds: number[] }> {
  const req = withModel(asked, resolveRequestModel(services, asked.model));
  const ctx = modelContextFor(services, req.model);
  return { model: req.model, ctx, promptIds: (await chatFormat(services, req, ctx)).promptIds };
}

export { renderChatPrompt };

/**
 * The request with its model id canonical. Nothing here writes to the request, so one asked by
 * its canonical id (the usual case) is used as it is: a chat request has ~40 fields, and copying
 * them showed in the short-request profile.
 */
function withModel(asked: ChatGenerationRequest, model: string): ChatGenerationRequest {
  return model === asked.model ? asked : { ...asked, model };
}

export async function prepareChat(services: PipelineServices, asked: ChatGenerationRequest, requestId: string): Promise<PreparedChat> {
  // Served names and aliases resolve to the canonical id: parsers, metrics and `model` use it.
  const req = withModel(asked, resolveRequestModel(services, asked.model));
  const ctx = modelContextFor(services, req.model);
  const format = await chatFormat(services, req, ctx);
  const { promptIds } = format;
  const { worker, client } = acquireWorker(services, req.model, promptIds, { topLogprobs: req.logprobs ? (req.topLogprobs ?? 0) : 0 });
  const decision = format.decide(worker.runtime);

  // top_logprobs is only accepted together with logprobs.
  checkTopLogprobs(worker.runtime, req.topLogprobs ?? 0);
  // TokenSpeed returns only the sampled token's logprob: `top_logprobs` is always [] (request-pipeline §9.2).
  const topLogprobs = req.logprobs ? (worker.runtime === 'tokenspeed' ? 0 : (req.topLogprobs ?? 1)) : null;
  const plan = planStopStrings(decision.decoderStopStrings, ctx.tokenizer);
  const { skipSpecialTokens } = decision;
  const stopTokenIds = decision.extraStopTokenIds.length > 0 ? [...req.stopTokenIds, ...decision.extraStopTokenIds] : req.stopTokenIds;
  const built = buildSampling(
    { ...req, stop: [...decision.decoderStopStrings], stopTokenIds, structured: decision.structured, skipSpecialTokens },
    {
      runtime: worker.runtime,
      promptLen: promptIds.length,
      maxModelLen: client.maxModelLen,
      vocab: ctx.tokenizer,
      // The engine is asked for at least the sampled token's logprob (top_logprobs ≤ 20 is validated).
      logprobs: topLogprobs === null ? null : worker.runtime === 'tokenspeed' ? 0 : Math.max(topLogprobs, 1),
      stopPlan: plan,
    },
  );

  const id = backendRequestId(req.rid, requestId);
  const engineBase = engineRequestBase(id, req.rid, worker.runtime);
  return {
    worker,
    client,
    tokenizer: ctx.tokenizer,
    choices: fanOut(0, engineBase, promptIds, built.spec, req.n, worker.runtime),
    rules: decodeRules(plan, built, { keepStop: req.keepStop, skipSpecialTokens }),
    output: decision.output,
    stream: req.stream,
    model: req.model,
    priority: req.priority,
    id,
    created: Math.floor(Date.now() / 1000),
    n: req.n,
    topLogprobs,
    promptTokens: promptIds.length,
  };
}
