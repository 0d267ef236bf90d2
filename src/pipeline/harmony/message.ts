/**
 * One Harmony message and how it is written: `<|start|>{header}<|message|>{content}{end}`, where
 * the header is the author, an optional ` to={recipient}`, an optional `<|channel|>{channel}` and an
 * optional ` {content type}`. Rules from openai/harmony `src/encoding.rs` (`Render<Message>`) and
 * the format guide's "Message format":
 * - a tool's output is authored by the tool's name (`functions.get_weather`), not by `tool`;
 * - recipient `all` is the default and is not written;
 * - a content type is written after one space (`<|constrain|>json` thus reads ` <|constrain|>json`;
 *   the reference tokenizes that marker as the special token, which tokenizing the rendered text
 *   with special tokens recognized reproduces);
 * - an assistant message with a recipient (a tool call) ends with `<|call|>`, every other message
 *   with `<|end|>`; `<|return|>` never appears in a prompt (format guide, implementation note
 *   under "Chat conversation format").
 */
import { CALL, CHANNEL, END, MESSAGE, START } from './tokens.js';
import type { HarmonyRecipientPlacement } from './types.js';

export type HarmonyRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface HarmonyMessage {
  role: HarmonyRole;
  /** Written as the header's first word: the role, or the tool name for tool output. */
  author: string;
  recipient?: string;
  channel?: string;
  contentType?: string;
  content: string;
}

export function renderMessage(m: HarmonyMessage, placement: HarmonyRecipientPlacement): string {
  const recipient = m.recipient !== undefined && m.recipient !== 'all' ? ` to=${m.recipient}` : '';
  // Only an assistant's own calls move the recipient behind the channel: that is where the model
  // writes it. Tool output keeps `functions.x to=assistant<|channel|>commentary` (format guide).
  const afterChannel = placement === 'channel' && m.role === 'assistant' && m.channel !== undefined;
  let out = START + m.author;
  if (!afterChannel) out += recipient;
  if (m.channel !== undefined) out += CHANNEL + m.channel;
  if (afterChannel) out += recipient;
  if (m.contentType !== undefined) out += ` ${m.contentType}`;
  out += MESSAGE + m.content;
  out += m.role === 'assistant' && m.recipient !== undefined ? CALL : END;
  return out;
}
