/**
 * Contents of the two preamble messages: `system` (identity, dates, reasoning effort, channels)
 * and `developer` (instructions and function tools). Layout from openai/harmony `src/encoding.rs`
 * (`Render<SystemContent>`, `Render<DeveloperContent>`) with the defaults of `src/chat.rs`
 * (`SystemContent::default`); expected text in `test-data/test_simple_convo*.txt`,
 * `test_reasoning_system_message_with_dates.txt`, `test_render_functions_with_parameters.txt`, and
 * the format guide's "System message format" / "Developer message format".
 */
import { functionsToolsSection } from './tools-section.js';
import type { HarmonyFunctionTool, HarmonyReasoningEffort } from './types.js';

export const DEFAULT_MODEL_IDENTITY = 'You are ChatGPT, a large language model trained by OpenAI.';
export const DEFAULT_KNOWLEDGE_CUTOFF = '2024-06';
export const ALL_CHANNELS = ['analysis', 'commentary', 'final'] as const;

/**
 * A request's `reasoning_effort` as a Harmony effort, as SMG maps it
 * (harmony/builder.rs `build_system_message_from_chat`): `minimal` has no Harmony level and becomes
 * `low`; absent or unknown values become `medium`.
 */
export function harmonyReasoningEffort(value: unknown): HarmonyReasoningEffort {
  if (value === 'low' || value === 'medium' || value === 'high') return value;
  if (value === 'minimal') return 'low';
  return 'medium';
}

/** Today as `YYYY-MM-DD` in local time (SMG: `chrono::Local::now().format("%Y-%m-%d")`). */
export function localDate(now: Date = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export interface SystemContentOptions {
  modelIdentity: string | null;
  knowledgeCutoff: string | null;
  currentDate: string | null;
  reasoningEffort: HarmonyReasoningEffort;
  channels: readonly string[];
  hasFunctionTools: boolean;
}

export function systemContent(o: SystemContentOptions): string {
  const sections: string[] = [];
  const top: string[] = [];
  if (o.modelIdentity !== null) top.push(o.modelIdentity);
  if (o.knowledgeCutoff !== null) top.push(`Knowledge cutoff: ${o.knowledgeCutoff}`);
  if (o.currentDate !== null) top.push(`Current date: ${o.currentDate}`);
  if (top.length > 0) sections.push(top.join('\n'));
  sections.push(`Reasoning: ${o.reasoningEffort}`);
  if (o.channels.length > 0) {
    // `channel_required` is true in the default channel config, hence the second sentence.
    let channels = `# Valid channels: ${o.channels.join(', ')}. Channel must be included for every message.`;
    // Only when the conversation declares function tools (`conversation_has_function_tools`).
    if (o.hasFunctionTools) channels += "\nCalls to these tools must go to the commentary channel: 'functions'.";
    sections.push(channels);
  }
  return sections.join('\n\n');
}

/** Developer message text, or null when there is nothing to say (no instructions, no tools). */
export function developerContent(instructions: string | null, tools: readonly HarmonyFunctionTool[]): string | null {
  const sections: string[] = [];
  if (instructions !== null) sections.push('# Instructions', instructions);
  if (tools.length > 0) sections.push(functionsToolsSection(tools));
  // The official jinja template leaves "\n\n" after the instructions even when no tools follow;
  // the reference renderer joins sections with "\n\n" and ends on the last one, as done here.
  return sections.length > 0 ? sections.join('\n\n') : null;
}
