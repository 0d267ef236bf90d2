/**
 * Parsing a generated message header (the text between `<|start|>` — or the start of the output —
 * and `<|message|>`). Semantics of openai/harmony `src/encoding.rs`
 * (`StreamableParser::parse_header_from_string`, strict mode), which accepts the recipient either
 * with the role or after the channel, and a `<|constrain|>` glued to the recipient
 * (`test_tool_call_with_constrain_marker_adjacent`,
 * `test_tool_call_with_channel_before_recipient_and_constrain_adjacent`):
 *
 * 1. `<|channel|>NAME`: NAME runs to the first whitespace or `<`; it is cut out of the header.
 * 2. A space is put before every `<|constrain|>`, then the header splits on ASCII whitespace.
 * 3. The role: known for the first message (the prompt ended with `<|start|>assistant`), else the
 *    first word; an unknown first word followed by more words is a tool author.
 * 4. A leading word equal to the role is dropped. Of the rest, a last word `to=X` is the recipient;
 *    a single remaining word is the recipient even without `to=`; otherwise the last word is the
 *    content type and the one before it the recipient.
 * 5. Anything left over makes the header malformed (the reference raises), as does a channel marker
 *    with no name or a header without a role.
 */
import { CHANNEL, CONSTRAIN } from './tokens.js';

export interface HarmonyHeader {
  /** `assistant`, `user`, `system`, `developer`, or the author name of a tool message. */
  role: string;
  recipient?: string;
  channel?: string;
  contentType?: string;
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer', 'tool']);
/** Rust `split_ascii_whitespace`: space, \t, \n, \x0C, \r. */
const ASCII_WS = /[\t\n\f\r ]+/;
/** Rust `char::is_whitespace` ends a channel name, as does `<` (the next marker). */
const CHANNEL_END = /[\s<]/u;

/**
 * Parses a header. `knownRole` is the role the prompt already opened (`assistant` for the first
 * generated message), or null when the header text starts with the role. Returns null when the
 * header is malformed.
 */
export function parseHarmonyHeader(text: string, knownRole: string | null): HarmonyHeader | null {
  let header = text;
  let channel: string | undefined;
  const at = header.indexOf(CHANNEL);
  if (at !== -1) {
    const after = header.slice(at + CHANNEL.length);
    const end = after.search(CHANNEL_END);
    const name = end === -1 ? after : after.slice(0, end);
    if (name === '') return null;
    channel = name;
    header = header.slice(0, at) + (end === -1 ? '' : after.slice(end));
  }
  header = header.trim();
  if (header.includes(CONSTRAIN)) header = header.split(CONSTRAIN).join(` ${CONSTRAIN}`).trim();
  const parts = header === '' ? [] : header.split(ASCII_WS).filter((p) => p !== '');

  let role = knownRole;
  // What a leading word is compared with: the role's name, `tool` for a tool author.
  let roleWord = knownRole;
  if (role === null) {
    const first = parts[0];
    if (first === undefined) return null;
    if (ROLES.has(first)) role = roleWord = first;
    else if (parts.length > 1 || first.startsWith('to=')) {
      parts.shift();
      role = first;
      roleWord = 'tool';
    } else return null;
  }
  if (parts[0] === roleWord) parts.shift();

  const result: HarmonyHeader = { role };
  if (channel !== undefined) result.channel = channel;
  const count = parts.length;
  const last = parts.pop();
  if (last !== undefined) {
    if (last.startsWith('to=')) result.recipient = last.slice(3);
    else if (count === 1) result.recipient = last;
    else {
      result.contentType = last;
      const recipient = parts.pop();
      if (recipient !== undefined) result.recipient = recipient.startsWith('to=') ? recipient.slice(3) : recipient;
    }
  }
  return parts.length === 0 ? result : null;
}
