/**
 * OpenAI chat messages → Harmony messages (everything after the system/developer preamble).
 *
 * - A leading `system` or `developer` message becomes the developer message's `# Instructions`
 *   (official jinja template: `messages[0]` of either role is the developer message; vLLM
 *   `extract_instructions_from_messages` does the same). Later system/developer messages are
 *   kept in place as plain messages of their role (vLLM `chat_input_to_harmony`); the jinja
 *   template silently drops them.
 * - An assistant turn becomes, in the order the model writes them (format guide "Preambles"): its
 *   reasoning on `analysis`; with tool calls, its content as a `commentary` preamble and one
 *   `commentary` message per call, addressed `functions.NAME`, typed `<|constrain|>json` (format
 *   guide "Receiving tool calls"; vLLM and SMG write plain `json`, which vLLM says is untested
 *   either way); without tool calls, its content on `final`. Empty parts are left out, so an empty
 *   assistant turn renders nothing (vLLM).
 * - A tool result is authored `functions.NAME`, addressed to `assistant`, on `commentary`, content
 *   verbatim (format guide "Handling tool calls"; reference `test_tool_response_parsing`). NAME is
 *   the function of the call whose id matches `tool_call_id` (vLLM/SMG), else the message's `name`.
 *   The jinja template instead JSON-quotes the content (`|tojson`); the reference does not.
 * - Call arguments are written as given (reference/vLLM/SMG), not re-serialized as the jinja
 *   template's `arguments|tojson` would.
 * - Text content arrays keep their text parts joined by "\n" (SMG); other parts are dropped.
 */
import { HarmonyRenderError } from './errors.js';
import type { HarmonyMessage } from './message.js';
import type { HarmonyChatMessage, HarmonyContent, HarmonyCotDrop, HarmonyToolCall } from './types.js';

const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

export function contentText(content: HarmonyContent): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => TEXT_PARTS.has(p.type) && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

function argumentsText(args: HarmonyToolCall['function']['arguments']): string {
  if (args == null) return '';
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** The leading system/developer message's text, and the messages after it. */
export function splitInstructions(messages: readonly HarmonyChatMessage[]): {
  instructions: string | null;
  rest: readonly HarmonyChatMessage[];
} {
  const first = messages[0];
  if (first === undefined || (first.role !== 'system' && first.role !== 'developer')) return { instructions: null, rest: messages };
  const text = contentText(first.content);
  // An empty instruction adds nothing; vLLM skips the developer message for it too.
  return { instructions: text === '' ? null : text, rest: messages.slice(1) };
}

function assistantMessages(m: HarmonyChatMessage): HarmonyMessage[] {
  const out: HarmonyMessage[] = [];
  const reasoning = m.reasoning_content ?? m.reasoning ?? '';
  const text = contentText(m.content);
  const base = { role: 'assistant', author: 'assistant' } as const;
  if (reasoning !== '') out.push({ ...base, channel: 'analysis', content: reasoning });
  const calls = m.tool_calls ?? [];
  if (calls.length === 0) {
    if (text !== '') out.push({ ...base, channel: 'final', content: text });
    return out;
  }
  if (text !== '') out.push({ ...base, channel: 'commentary', content: text });
  for (const call of calls) {
    out.push({
      ...base,
      channel: 'commentary',
      recipient: `functions.${call.function.name}`,
      contentType: '<|constrain|>json',
      content: argumentsText(call.function.arguments),
    });
  }
  return out;
}

export function toHarmonyMessages(messages: readonly HarmonyChatMessage[]): HarmonyMessage[] {
  const callNames = new Map<string, string>();
  for (const m of messages) for (const call of m.tool_calls ?? []) if (call.id !== undefined) callNames.set(call.id, call.function.name);

  const out: HarmonyMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
      case 'user':
        out.push({ role: m.role, author: m.role, content: contentText(m.content) });
        break;
      case 'assistant':
        out.push(...assistantMessages(m));
        break;
      case 'tool':
      case 'function': {
        const name = (m.tool_call_id !== undefined ? callNames.get(m.tool_call_id) : undefined) ?? m.name;
        if (name === undefined) {
          throw new HarmonyRenderError(
            `tool message with tool_call_id '${m.tool_call_id ?? ''}' does not answer any assistant tool call and has no name`,
          );
        }
        out.push({
          role: 'tool',
          author: `functions.${name}`,
          recipient: 'assistant',
          channel: 'commentary',
          content: contentText(m.content),
        });
        break;
      }
      default:
        throw new HarmonyRenderError(`unsupported message role '${m.role}'`);
    }
  }
  return out;
}

/** Removes the analysis messages the chosen rule drops (see `HarmonyCotDrop`). */
export function dropAnalysis(messages: readonly HarmonyMessage[], rule: HarmonyCotDrop): HarmonyMessage[] {
  const isFinal = (m: HarmonyMessage): boolean => m.channel === 'final';
  let cut = -1;
  if (rule === 'before-last-final') {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].role === 'assistant' && isFinal(messages[i])) {
        cut = i;
        break;
      }
    }
  } else if (rule === 'reference') {
    const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
    // openai/harmony encoding.rs render_conversation_into: first message on `final`, any role.
    if (lastAssistant !== undefined && isFinal(lastAssistant)) cut = messages.findIndex(isFinal);
  }
  return messages.filter((m, i) => !(i < cut && m.channel === 'analysis'));
}
