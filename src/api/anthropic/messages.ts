/**
 * Anthropic `system` + `messages` → the chat messages templates render (request-pipeline §3.3),
 * following SMG's conversion (smg-project/smg model_gateway/src/routers/grpc/utils/message_utils.rs):
 *
 * - `system` (string or text blocks joined by "\n") becomes a leading system message;
 * - user text blocks become the user message's text parts; each `tool_result` becomes its own
 *   `{role: "tool", tool_call_id, content}` message;
 * - assistant `text` blocks are joined into `content`, `tool_use` blocks become `tool_calls`
 *   (arguments as JSON text), `thinking` blocks (joined by "\n") `reasoning_content`;
 * - a `system`-role message inside `messages` stays where it is.
 *
 * One deviation: SMG puts a user turn's text before its tool results; here they keep the order of
 * the blocks. Anthropic requires tool results first, so the tool messages follow the assistant's
 * tool calls directly, as chat templates expect.
 *
 * There is no multimodal path, so image and document blocks are refused with a 400 rather than
 * silently dropped from what the model sees.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { ChatMessage } from '../../pipeline/request.js';
import { type Json, isObj } from '../../pipeline/tools/tool-choice.js';

const MEDIA_BLOCKS = new Set(['image', 'document']);

/**
 * Block types of Anthropic's Messages API that have no chat form and are skipped, as SMG skips
 * them (thinking echoes, server-tool calls and results, search results, uploads). Any other type
 * is unknown and refused, as Anthropic refuses it, rather than silently dropped from the prompt.
 * https://docs.anthropic.com/en/api/messages (content block types).
 */
const SKIPPED_BLOCKS = new Set([
  'thinking',
  'redacted_thinking',
  'search_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
]);

function unknownBlock(where: string, type: string): PipelineError {
  return invalid(`${where}.type: unknown content block type '${type}'`);
}

function mediaRefused(where: string, type: string): PipelineError {
  return new PipelineError(
    400,
    'multimodal_not_supported',
    `${where}: '${type}' content blocks are not supported: this gateway serves text-only models (no multimodal input path)`,
    true,
  );
}

function blocksOf(content: unknown, where: string): Json[] {
  if (!Array.isArray(content)) throw invalid(`${where}: must be a string or an array of content blocks`);
  return content.map((b, j) => {
    if (!isObj(b) || typeof b.type !== 'string') throw invalid(`${where}[${j}]: must be a content block with a 'type'`);
    return b;
  });
}

function textOf(block: Json, where: string): string {
  if (typeof block.text !== 'string') throw invalid(`${where}.text: must be a string`);
  return block.text;
}

/** Text blocks joined by "\n" (system prompts, system messages, tool results). */
function joinedText(content: unknown, where: string, opts: { refuseMedia: boolean; onlyText: boolean }): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  blocksOf(content, where).forEach((b, j) => {
    if (b.type === 'text') texts.push(textOf(b, `${where}[${j}]`));
    else if (opts.refuseMedia && MEDIA_BLOCKS.has(b.type as string)) throw mediaRefused(`${where}[${j}]`, b.type as string);
    else if (opts.onlyText) throw invalid(`${where}[${j}]: only text blocks are allowed here, got '${String(b.type)}'`);
  });
  return texts.join('\n');
}

export function systemMessage(system: unknown): ChatMessage | null {
  if (system === undefined || system === null) return null;
  return { role: 'system', content: joinedText(system, 'system', { refuseMedia: true, onlyText: true }) };
}

function userMessages(content: unknown, where: string, out: ChatMessage[]): void {
  if (typeof content === 'string') {
    out.push({ role: 'user', content });
    return;
  }
  let parts: Json[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: 'user', content: parts });
    parts = [];
  };
  blocksOf(content, where).forEach((b, j) => {
    const at = `${where}[${j}]`;
    switch (b.type) {
      case 'text':
        // A fresh part: cache_control and citations are no template input.
        parts.push({ type: 'text', text: textOf(b, at) });
        break;
      case 'tool_result': {
        if (typeof b.tool_use_id !== 'string') throw invalid(`${at}.tool_use_id: must be a string`);
        flush();
        const result = b.content === undefined || b.content === null ? '' : joinedText(b.content, `${at}.content`, { refuseMedia: true, onlyText: false });
        out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: result });
        break;
      }
      default:
        if (MEDIA_BLOCKS.has(b.type as string)) throw mediaRefused(at, b.type as string);
        // Thinking echoes, server-tool results, search results have no chat form: SMG skips them.
        if (b.type === 'tool_use') throw invalid(`${at}: 'tool_use' blocks belong in assistant messages`);
        if (!SKIPPED_BLOCKS.has(b.type as string)) throw unknownBlock(at, b.type as string);
    }
  });
  flush();
}

function assistantMessage(content: unknown, where: string): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: Json[] = [];
  blocksOf(content, where).forEach((b, j) => {
    const at = `${where}[${j}]`;
    switch (b.type) {
      case 'text':
        texts.push(textOf(b, at));
        break;
      case 'thinking':
        if (typeof b.thinking !== 'string') throw invalid(`${at}.thinking: must be a string`);
        thinking.push(b.thinking);
        break;
      case 'tool_use':
        if (typeof b.id !== 'string') throw invalid(`${at}.id: must be a string`);
        if (typeof b.name !== 'string') throw invalid(`${at}.name: must be a string`);
        if (b.input !== undefined && b.input !== null && !isObj(b.input)) throw invalid(`${at}.input: must be an object`);
        toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
        break;
      default:
        if (MEDIA_BLOCKS.has(b.type as string)) throw mediaRefused(at, b.type as string);
        if (b.type === 'tool_result') throw invalid(`${at}: 'tool_result' blocks belong in user messages`);
        if (!SKIPPED_BLOCKS.has(b.type as string)) throw unknownBlock(at, b.type as string);
    }
  });
  const msg: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  if (thinking.length > 0) msg.reasoning_content = thinking.join('\n');
  return msg;
}

/** The chat messages of a Messages request, system prompt first. */
export function convertMessages(body: Json): ChatMessage[] {
  const raw = body.messages;
  if (!Array.isArray(raw) || raw.length === 0) throw invalid('messages array is required and cannot be empty');
  const out: ChatMessage[] = [];
  const system = systemMessage(body.system);
  if (system) out.push(system);
  raw.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isObj(m)) throw invalid(`${where}: must be an object`);
    const content = m.content;
    if (content === undefined || content === null) throw invalid(`${where}.content: field is required`);
    switch (m.role) {
      case 'user':
        // An empty turn would render as an empty user message the client never meant to send.
        if (content === '' || (Array.isArray(content) && content.length === 0)) {
          throw invalid(`${where}.content: user messages must have non-empty content`);
        }
        userMessages(content, `${where}.content`, out);
        break;
      case 'assistant':
        out.push(assistantMessage(content, `${where}.content`));
        break;
      case 'system':
        out.push({ role: 'system', content: joinedText(content, `${where}.content`, { refuseMedia: true, onlyText: false }) });
        break;
      default:
        throw invalid(`${where}.role: must be 'user', 'assistant' or 'system', got '${String(m.role)}'`);
    }
  });
  return out;
}
