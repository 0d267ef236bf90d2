/**
 * Renders a chat conversation into the Harmony prompt text for gpt-oss, ending with the
 * generation prompt `<|start|>assistant` (openai/harmony `render_conversation_for_completion`).
 * Tokenize the result with special tokens recognized and no BOS (`encode(text, false)`): the
 * reference renderer emits the same ids, because it inserts each formatting token as its special
 * id and encodes the text between them as ordinary text.
 *
 * Message order: the system message (always), the developer message (when there are instructions
 * or function tools; SMG always sends one, empty if need be, which the format guide never shows),
 * then the conversation (`conversation.ts`).
 */
import { dropAnalysis, splitInstructions, toHarmonyMessages } from './conversation.js';
import { type HarmonyMessage, renderMessage } from './message.js';
import {
  ALL_CHANNELS,
  DEFAULT_KNOWLEDGE_CUTOFF,
  DEFAULT_MODEL_IDENTITY,
  developerContent,
  localDate,
  systemContent,
} from './system-message.js';
import { START } from './tokens.js';
import { functionTools } from './tools-section.js';
import type { HarmonyRenderOptions } from './types.js';


/** The Harmony messages of a conversation, preamble included, before rendering. */
export function harmonyMessages(o: HarmonyRenderOptions): HarmonyMessage[] {
  const tools = functionTools(o.tools);
  const { instructions, rest } = splitInstructions(o.messages);
  const channels = o.omitCommentaryWithoutTools && tools.length === 0 ? ALL_CHANNELS.filter((c) => c !== 'commentary') : ALL_CHANNELS;
  const out: HarmonyMessage[] = [
    {
      role: 'system',
      author: 'system',
      content: systemContent({
        modelIdentity: o.modelIdentity === undefined ? DEFAULT_MODEL_IDENTITY : o.modelIdentity,
        knowledgeCutoff: o.knowledgeCutoff === undefined ? DEFAULT_KNOWLEDGE_CUTOFF : o.knowledgeCutoff,
        currentDate: o.currentDate === undefined ? localDate() : o.currentDate,
        reasoningEffort: o.reasoningEffort ?? 'medium',
        channels,
        hasFunctionTools: tools.length > 0,
      }),
    },
  ];
  const developer = developerContent(instructions, tools);
  if (developer !== null) out.push({ role: 'developer', author: 'developer', content: developer });
  out.push(...dropAnalysis(toHarmonyMessages(rest), o.cotDrop ?? 'before-last-final'));
  return out;
}

export function renderHarmonyPrompt(o: HarmonyRenderOptions): string {
  const placement = o.recipientPlacement ?? 'channel';
  let out = '';
  for (const m of harmonyMessages(o)) out += renderMessage(m, placement);
  return `${out}${START}assistant`;
}
