/**
 * The chat-template format (request-pipeline §4, §10, §11): render the model's Jinja template,
 * then read the output with the reasoning and tool-call parsers that resolve for the model.
 */
import type { ChatFormat } from './chat-format.js';
import { buildTemplateKwargs, reasoningStarted, thinkingPreference } from './chat-template-thinking.js';
import { ChatTemplateError } from './chat-template.js';
import { PipelineError } from '../errors.js';
import type { ModelContext } from '../model-context.js';
import { encodeChatPrompt } from '../prompt-pool/encode-prompt.js';
import { type ReasoningStage, type ToolStage, chatOutputPlan } from '../output/chat-output-plan.js';
import { resolveParsers } from '../parsers/resolve.js';
import { TOOL_PARSERS } from '../parsers/tools/registry.js';
import type { ToolSchema } from '../parsers/tools/types.js';
import type { ChatGenerationRequest } from '../request.js';
import type { PipelineServices } from '../services.js';
import { toolCallIds } from '../tools/tool-calls.js';
import { type Json, type ToolConstraint, buildToolConstraint, chatSkipSpecialTokens, functionOf, templateTools } from '../tools/tool-choice.js';

/**
 * `tools` is the filtered list (§10.2), or undefined when the request has none. Big prompts are
 * rendered and encoded on the model's prompt threads, off the event loop (prompt-pool/).
 */
export async function renderChatPrompt(
  req: ChatGenerationRequest,
  ctx: ModelContext,
  tools: Json[] | undefined,
  maxModelLen: number | null = null,
): Promise<number[]> {
  const template = ctx.template;
  if (!template) throw new PipelineError(400, 'process_messages_failed', ctx.templateError ?? 'no chat template');
  try {
    const kwargs = buildTemplateKwargs(
      {
        chatTemplateKwargs: req.chatTemplateKwargs,
        toolChoice: req.tools ? req.toolChoice : undefined,
        reasoningEffort: req.reasoningEffort,
        responseFormat: req.responseFormat,
        thinking: req.thinking,
      },
      template.thinking,
    );
    return await encodeChatPrompt({ tokenizer: ctx.tokenizer, pool: ctx.prompts ?? null, limit: { tokenizer: ctx.tokenizer, maxModelLen } }, template, {
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
}

export async function templateFormat(
  services: PipelineServices,
  req: ChatGenerationRequest,
  ctx: ModelContext,
  tools: Json[] | undefined,
): Promise<ChatFormat> {
  const promptIds = await renderChatPrompt(req, ctx, tools, services.workers.largestModelLen?.(req.model) ?? null);
  const toolConstraint = tools ? buildToolConstraint(tools, req.toolSelection) : null;
  return {
    promptIds,
    decide(runtime) {
      // Only one constraint reaches the engine (§10.1): vLLM takes the forced tool call, TokenSpeed
      // the response format. When the tool constraint is dropped, the output is not read as the
      // forced call's JSON; the model's own tool parser still reads it, as for tool_choice auto.
      const toolWins = toolConstraint !== null && (runtime !== 'tokenspeed' || req.structured === null);
      const forcedTool = toolWins ? toolConstraint : null;
      const stages = outputStages(services, req, ctx, tools, forcedTool, forcedTool !== null || req.structured !== null);
      return {
        output: chatOutputPlan(stages.reasoning, stages.tools, toolCallIds(req.model, req.messages)),
        skipSpecialTokens: chatSkipSpecialTokens({
          requested: req.skipSpecialTokens,
          hasTools: req.tools !== undefined,
          selection: req.toolSelection,
          jsonToolConstraint: forcedTool !== null,
          reasoningNeedsSpecialTokens: stages.reasoning?.spec.needsSpecialTokens ?? false,
        }),
        structured: forcedTool?.constraint ?? req.structured,
        extraStopTokenIds: [],
        decoderStopStrings: req.stop,
      };
    },
  };
}

/**
 * The parser stages of a chat request (§11.1, §11.4): the reasoning split when separate_reasoning
 * and a parser resolves — armed when the template starts the output in reasoning (§4.4) — and the
 * tool stage when tools may be called: the forced call's JSON under a JSON-schema constraint, else
 * the model's tool parser.
 */
function outputStages(
  services: PipelineServices,
  req: ChatGenerationRequest,
  ctx: ModelContext,
  tools: Json[] | undefined,
  forcedTool: ToolConstraint | null,
  /**
   * A grammar shapes the output from its first token, so it cannot begin inside a `<think>` block:
   * arming the parser there (as SMG would) would read the whole constrained answer as reasoning.
   */
  constrained: boolean,
): { reasoning: ReasoningStage | null; tools: ToolStage | null } {
  const parsers = resolveParsers(req.model, services.workers.configuredParsers(req.model), (m) => services.logger.warn(m));
  let reasoning: ReasoningStage | null = null;
  if (req.separateReasoning && parsers.reasoning) {
    const toggle = ctx.template?.thinking ?? { key: null, defaultOn: false };
    const started = reasoningStarted(
      toggle,
      thinkingPreference({ chatTemplateKwargs: req.chatTemplateKwargs, reasoningEffort: req.reasoningEffort, thinking: req.thinking }, toggle),
    );
    const armed = !constrained && (parsers.reasoning.startsInReasoning || started);
    reasoning = {
      spec: parsers.reasoning,
      options: {
        startInReasoning: armed,
        startMarkerConsumed: armed && started && (ctx.template?.thinkInPrefill ?? false),
      },
      hold: req.stream && !req.streamReasoning,
    };
  }
  const schemas = (tools ?? []).map(toolSchema);
  let toolStage: ToolStage | null = null;
  if (forcedTool) {
    toolStage = { kind: 'forced', shape: forcedTool.shape, json: TOOL_PARSERS.get('json')!, tools: schemas };
  } else if (tools && tools.length > 0 && req.toolSelection !== undefined && req.toolSelection.mode !== 'none' && parsers.tool) {
    toolStage = { kind: 'parser', spec: parsers.tool, tools: schemas };
  }
  return { reasoning, tools: toolStage };
}

function toolSchema(tool: Json): ToolSchema {
  const fn = functionOf(tool) ?? {};
  const schema: ToolSchema = { name: String(fn.name) };
  const params = fn.parameters;
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) schema.parameters = params as Record<string, unknown>;
  return schema;
}
