/**
 * A chat generation, from a protocol-neutral request to everything `generate` needs: template →
 * tokenize → pick a worker → build the engine sampling → fan out the choices → decide how the
 * output is read (request-pipeline §3.1.1 steps 7–12). Every chat-like protocol (OpenAI chat,
 * Anthropic Messages, Responses) goes through here.
 */
import { buildSampling, checkTopLogprobs, decodeRules } from './build-sampling.js';
import { buildTemplateKwargs } from './chat-template-thinking.js';
import { ChatTemplateError } from './chat-template.js';
import { PipelineError } from './errors.js';
import { fanOut } from './fan-out.js';
import type { GenerationSpec } from './generation-spec.js';
import { backendRequestId, engineRequestBase } from './ids.js';
import type { ModelContext } from './model-context.js';
import { acquireWorker, modelContextFor } from './model-lookup.js';
import type { ChatGenerationRequest } from './request.js';
import type { PipelineServices } from './services.js';
import { planStopStrings } from './stop-plan.js';
import { forcedToolPlan, toolCallIds } from './tools/tool-calls.js';
import { type Json, buildToolConstraint, chatSkipSpecialTokens, filterTools, templateTools } from './tools/tool-choice.js';

export interface PreparedChat extends GenerationSpec {
  /** Response id (request-pipeline §2.1). */
  id: string;
  created: number;
  n: number;
  /** Logprob candidates to show per token, or null when logprobs were not requested. */
  topLogprobs: number | null;
  promptTokens: number;
}

/** `tools` is the filtered list (§10.2), or undefined when the request has none. */
export function renderChatPrompt(req: ChatGenerationRequest, ctx: ModelContext, tools: Json[] | undefined): number[] {
  if (!ctx.template) throw new PipelineError(400, 'process_messages_failed', ctx.templateError ?? 'no chat template');
  let rendered: string;
  try {
    const kwargs = buildTemplateKwargs(
      {
        chatTemplateKwargs: req.chatTemplateKwargs,
        toolChoice: req.tools ? req.toolChoice : undefined,
        reasoningEffort: req.reasoningEffort,
        responseFormat: req.responseFormat,
        thinking: req.thinking,
      },
      ctx.template.thinking,
    );
    rendered = ctx.template.render({
      messages: req.messages as never,
      tools: tools ? (templateTools(tools) as never) : null,
      addGenerationPrompt: req.continueFinalMessage ? true : req.addGenerationPrompt,
      continueFinalMessage: req.continueFinalMessage,
      kwargs,
    });
  } catch (err) {
    if (err instanceof ChatTemplateError) throw new PipelineError(400, 'process_messages_failed', err.message);
    throw err;
  }
  return ctx.tokenizer.encode(rendered, false);
}

/**
 * The templated prompt's length for a chat request, tools filtered as `prepareChat` does; no worker
 * is picked and no engine is involved (Anthropic's count_tokens).
 */
export function countChatPromptTokens(services: PipelineServices, req: ChatGenerationRequest): number {
  const ctx = modelContextFor(services, req.model);
  const tools = req.tools ? filterTools(req.tools, req.toolSelection) : undefined;
  return renderChatPrompt(req, ctx, tools).length;
}

export function prepareChat(services: PipelineServices, req: ChatGenerationRequest, requestId: string): PreparedChat {
  const ctx = modelContextFor(services, req.model);
  const tools = req.tools ? filterTools(req.tools, req.toolSelection) : undefined;
  const promptIds = renderChatPrompt(req, ctx, tools);
  const toolConstraint = tools ? buildToolConstraint(tools, req.toolSelection) : null;
  const { worker, client } = acquireWorker(services, req.model, promptIds);

  // Only one constraint reaches the engine (§10.1): vLLM takes the forced tool call, TokenSpeed
  // the response format. A dropped tool constraint means the output is not read as tool calls.
  const toolWins = toolConstraint !== null && (worker.runtime !== 'tokenspeed' || req.structured === null);
  const forcedTool = toolWins ? toolConstraint : null;
  const skipSpecialTokens = chatSkipSpecialTokens({
    requested: req.skipSpecialTokens,
    hasTools: req.tools !== undefined,
    selection: req.toolSelection,
    jsonToolConstraint: forcedTool !== null,
  });

  // top_logprobs is only accepted together with logprobs.
  checkTopLogprobs(worker.runtime, req.topLogprobs ?? 0);
  // TokenSpeed returns only the sampled token's logprob: `top_logprobs` is always [] (request-pipeline §9.2).
  const topLogprobs = req.logprobs ? (worker.runtime === 'tokenspeed' ? 0 : (req.topLogprobs ?? 1)) : null;
  const plan = planStopStrings(req.stop, ctx.tokenizer);
  const built = buildSampling({ ...req, structured: forcedTool?.constraint ?? req.structured, skipSpecialTokens }, {
    runtime: worker.runtime,
    promptLen: promptIds.length,
    maxModelLen: client.maxModelLen,
    vocab: ctx.tokenizer,
    // The engine is asked for at least the sampled token's logprob (top_logprobs ≤ 20 is validated).
    logprobs: topLogprobs === null ? null : worker.runtime === 'tokenspeed' ? 0 : Math.max(topLogprobs, 1),
    stopPlan: plan,
  });

  const id = backendRequestId(req.rid, requestId);
  const engineBase = engineRequestBase(id, req.rid, worker.runtime);
  return {
    worker,
    client,
    tokenizer: ctx.tokenizer,
    choices: fanOut(0, engineBase, promptIds, built.spec, req.n, worker.runtime),
    rules: decodeRules(plan, built, { keepStop: req.keepStop, skipSpecialTokens }),
    output: forcedTool ? forcedToolPlan(forcedTool.shape, toolCallIds(req.model, req.messages)) : null,
    stream: req.stream,
    model: req.model,
    id,
    created: Math.floor(Date.now() / 1000),
    n: req.n,
    topLogprobs,
    promptTokens: promptIds.length,
  };
}
