/**
 * The Harmony format for gpt-oss (request-pipeline §11.6, §3.1.1 step 5): the conversation is
 * rendered by OpenAI's Harmony rules (no Jinja template), `<|return|>` and `<|call|>` stop the
 * engine, the output is read by channel (analysis → reasoning, `functions.*` recipients → tool
 * calls, final and preambles → content), and user stop strings apply to final-channel text only.
 */
import type { ChatFormat } from './chat-format.js';
import { PipelineError, invalid } from '../errors.js';
import { HarmonyChannelParser, callableToolNames, parseHarmony } from '../harmony/channel-parser.js';
import { HarmonyRenderError } from '../harmony/errors.js';
import { renderHarmonyPrompt } from '../harmony/render.js';
import { harmonyStopTokenIds } from '../harmony/stops.js';
import { harmonyReasoningEffort } from '../harmony/system-message.js';
import type { HarmonyChatMessage, HarmonyFunctionTool } from '../harmony/types.js';
import type { ModelContext } from '../model-context.js';
import type { OutputPlan } from '../output/output-plan.js';
import { encodePromptText } from '../prompt-pool/encode-prompt.js';
import { tracePhase } from '../../tracing/request-trace.js';
import type { ChatGenerationRequest } from '../request.js';
import { StopStringMatcher } from '../stop-matcher.js';
import { toolCallIds } from '../tools/tool-calls.js';
import type { Json } from '../tools/tool-choice.js';

/** `maxModelLen`: the largest context of the model's engines, for the pre-encoding length bound. */
export async function harmonyFormat(
  req: ChatGenerationRequest,
  ctx: ModelContext,
  tools: Json[] | undefined,
  maxModelLen: number | null = null,
): Promise<ChatFormat> {
  // The model must be free to write its channel headers: an EOS-less run would never end its
  // turn, and a grammar would forbid the Harmony tokens themselves.
  if (req.ignoreEos) throw invalid('ignore_eos is not supported for Harmony (gpt-oss) models: generation must stop at <|return|> or <|call|>', 'ignore_eos');
  if (req.structured !== null || (req.toolSelection && req.toolSelection.mode !== 'auto' && req.toolSelection.mode !== 'none')) {
    throw invalid(
      'structured outputs and forced tool choices are not supported for Harmony (gpt-oss) models over ZMQ: a grammar would forbid the channel tokens the format needs',
      req.structured !== null ? 'response_format' : 'tool_choice',
    );
  }
  const functionTools = req.toolSelection?.mode === 'none' ? [] : ((tools ?? []) as unknown as HarmonyFunctionTool[]);
  let text: string;
  try {
    text = tracePhase('template', () =>
      renderHarmonyPrompt({
        messages: req.messages as unknown as HarmonyChatMessage[],
        tools: functionTools,
        reasoningEffort: harmonyReasoningEffort(req.reasoningEffort),
      }),
    );
  } catch (err) {
    if (err instanceof HarmonyRenderError) throw new PipelineError(400, 'process_messages_failed', err.message);
    throw err;
  }
  // Harmony's formatting tokens are special tokens: encoded as such, never with an added BOS.
  const promptIds = await tracePhase('tokenize', () =>
    encodePromptText({ tokenizer: ctx.tokenizer, pool: ctx.prompts ?? null, limit: { tokenizer: ctx.tokenizer, maxModelLen } }, text),
  );
  const stopIds = harmonyStopTokenIds(ctx.tokenizer);
  const toolNames = callableToolNames(functionTools);
  // A matched stop string stays in the answer as its suffix, whatever no_stop_trim says: SMG's
  // Harmony path keeps it (request-pipeline §11.6, harmony/stops.ts).
  const parserOptions = () => ({ toolNames, finalStops: req.stop.length > 0 ? new StopStringMatcher(req.stop, { includeStop: true }) : null });
  const output: OutputPlan = {
    createParser() {
      const opts = parserOptions();
      const parser = new HarmonyChannelParser(opts);
      return {
        push: (delta) => parser.push(delta),
        finish: () => parser.finish(),
        get matchedStop() {
          return opts.finalStops?.matched ?? null;
        },
      };
    },
    parse: (t) => parseHarmony(t, parserOptions()),
    // Parse as tokens arrive even without streaming, so a stop string in the answer ends the run.
    incremental: true,
    toolCallId: toolCallIds(req.model, req.messages),
  };
  return {
    promptIds,
    decide: () => ({
      output,
      // The channel markers are special tokens; the parser needs to see them.
      skipSpecialTokens: false,
      structured: null,
      extraStopTokenIds: stopIds,
      decoderStopStrings: [],
    }),
  };
}
