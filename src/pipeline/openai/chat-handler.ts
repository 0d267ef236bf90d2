/**
 * POST /v1/chat/completions over ZMQ: validate → template → tokenize → pick a worker → build the
 * engine sampling → generate (n choices) → JSON or SSE.
 */
import type { InferenceCall, InferenceHandler } from '../../gateway/route-deps.js';
import { buildSampling, checkTopLogprobs, decodeRules } from '../build-sampling.js';
import { buildTemplateKwargs } from '../chat-template-thinking.js';
import { ChatTemplateError } from '../chat-template.js';
import { fanOut } from '../generate.js';
import { backendRequestId, engineRequestBase } from '../ids.js';
import { planStopStrings } from '../stop-plan.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { chatFrames, collectChat } from './chat-respond.js';
import { ApiError } from './errors.js';
import { acquireWorker, modelContextFor, readJsonBody } from './route-context.js';
import { runAndRespond, withApiErrors } from './run-and-respond.js';
import { toolCallIds } from './tool-calls.js';
import { buildToolConstraint, chatSkipSpecialTokens, filterTools, templateTools } from './tool-choice.js';
import type { ModelContext } from '../model-context.js';

export function createChatHandler(): InferenceHandler {
  return withApiErrors(handleChat);
}

/** `tools` is the filtered list (§10.2), or undefined when the request has none. */
function renderPrompt(req: ChatRequest, ctx: ModelContext, tools: Record<string, unknown>[] | undefined): number[] {
  if (!ctx.template) throw new ApiError(400, 'process_messages_failed', ctx.templateError ?? 'no chat template');
  let rendered: string;
  try {
    const kwargs = buildTemplateKwargs(
      {
        chatTemplateKwargs: req.chatTemplateKwargs,
        toolChoice: req.tools ? req.toolChoice : undefined,
        reasoningEffort: req.reasoningEffort,
        responseFormat: req.responseFormat,
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
    if (err instanceof ChatTemplateError) throw new ApiError(400, 'process_messages_failed', err.message);
    throw err;
  }
  return ctx.tokenizer.encode(rendered, false);
}

async function handleChat(call: InferenceCall): Promise<Response> {
  const { services } = call;
  const req = parseChatRequest(await readJsonBody(call.request));
  const ctx = modelContextFor(services, req.model);
  const tools = req.tools ? filterTools(req.tools, req.toolSelection) : undefined;
  const promptIds = renderPrompt(req, ctx, tools);
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

  const wireId = backendRequestId(req.rid, call.requestId);
  const engineBase = engineRequestBase(wireId, req.rid, worker.runtime);
  const choices = fanOut(0, engineBase, promptIds, built.spec, req.n);
  const rules = decodeRules(plan, built, { keepStop: req.keepStop, skipSpecialTokens });
  const meta = {
    id: wireId,
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    n: req.n,
    tokenizer: ctx.tokenizer,
    topLogprobs,
    includeUsage: req.includeUsage,
    forcedTool: forcedTool && { shape: forcedTool.shape, idFor: toolCallIds(req.model, req.messages) },
  };
  return runAndRespond({
    call,
    worker,
    client,
    tokenizer: ctx.tokenizer,
    choices,
    rules,
    stream: req.stream,
    model: req.model,
    endpoint: 'chat_completions',
    meta,
    frames: chatFrames,
    collect: collectChat,
  });
}
