/**
 * Chat `messages` validation, as OpenAI's API and vLLM's pydantic models check them before any
 * template runs: known roles only (an unknown role would be dropped or mis-rendered by the
 * template), content a string, null where a role allows it, or an array of known part objects,
 * `tool` messages with their `tool_call_id`, assistant `tool_calls` entries of the documented shape
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages), `name` a
 * string. Multimodal parts are a 400 `multimodal_not_supported` naming the part: this gateway has
 * no media path, and a template handed an image part fails with an internal error instead.
 *
 * SMG's own texts (request-pipeline §3.1.3) are kept for the empty-message and empty-content cases.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { ChatMessage } from '../../pipeline/request.js';
import type { Body } from './fields.js';

const ROLES = ['system', 'user', 'assistant', 'tool', 'function', 'developer'] as const;
type Role = (typeof ROLES)[number];
const ROLE_SET: ReadonlySet<string> = new Set(ROLES);

const TEXT_PARTS: ReadonlySet<string> = new Set(['text', 'input_text', 'output_text']);

/** Part types of OpenAI's and vLLM's multimodal content (vllm/entrypoints/chat_utils.py MM_PARSER_MAP). */
export const MULTIMODAL_PARTS: ReadonlySet<string> = new Set([
  'image_url',
  'input_image',
  'image_embeds',
  'image_pil',
  'input_audio',
  'audio_url',
  'audio_embeds',
  'video_url',
  'video_embeds',
  'file',
  'input_file',
  'prompt_embeds',
]);

const isObj = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

export function multimodalRefused(where: string, type: string): PipelineError {
  return new PipelineError(
    400,
    'multimodal_not_supported',
    `${where}: '${type}' content parts are not supported: this gateway serves text-only models (no multimodal input path)`,
    true,
    where,
  );
}

/** One content part; `refusal` parts belong to assistant messages only. */
function checkPart(part: unknown, where: string, role: Role): void {
  if (!isObj(part) || typeof part.type !== 'string') {
    throw invalid(`${where}: must be a content part object with a string 'type', got ${shown(part)}`, where);
  }
  const type = part.type;
  if (TEXT_PARTS.has(type)) {
    if (typeof part.text !== 'string') throw invalid(`${where}.text: must be a string, got ${shown(part.text)}`);
    return;
  }
  if (type === 'refusal' && role === 'assistant') {
    if (typeof part.refusal !== 'string') throw invalid(`${where}.refusal: must be a string, got ${shown(part.refusal)}`);
    return;
  }
  if (MULTIMODAL_PARTS.has(type)) throw multimodalRefused(where, type);
  const expected = role === 'assistant' ? "'text' or 'refusal'" : "'text'";
  throw invalid(`${where}.type: unknown content part type ${shown(type)} in ${role} messages; expected ${expected}`);
}

function checkContent(msg: Body, where: string, role: Role): void {
  const content = msg.content;
  const at = `${where}.content`;
  if (role === 'user') {
    // SMG's text (request-pipeline §3.1.3) for a missing content. An empty string or part list is
    // accepted, as vLLM accepts it (issue 26: the template renders it as '' / []).
    if (content === undefined || content === null) throw invalid('message content cannot be empty', at);
  }
  if (content === undefined || content === null) {
    // Assistant turns may be tool calls only (or a prefill to continue); function results may be empty.
    if (role === 'assistant' || role === 'function') return;
    throw invalid(`${at}: field is required for ${role} messages`);
  }
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw invalid(`${at}: must be a string or an array of content parts, got ${shown(content)}`);
  content.forEach((part, j) => checkPart(part, `${at}[${j}]`, role));
}

/**
 * `{id, type: "function", function: {name, arguments}}`. The arguments are JSON text; vLLM also
 * takes them as an object (passed to the template as is) or absent / null ('{}'), so do we.
 */
function checkToolCalls(calls: unknown, where: string): void {
  if (!Array.isArray(calls)) throw invalid(`${where}: must be an array, got ${shown(calls)}`);
  calls.forEach((call, k) => {
    const at = `${where}[${k}]`;
    if (!isObj(call)) throw invalid(`${at}: must be an object {id, type: 'function', function: {name, arguments}}, got ${shown(call)}`);
    if (typeof call.id !== 'string') throw invalid(`${at}.id: must be a string, got ${shown(call.id)}`);
    if (call.type !== 'function') throw invalid(`${at}.type: must be 'function', got ${shown(call.type)}`);
    const fn = call.function;
    if (!isObj(fn)) throw invalid(`${at}.function: must be an object with 'name' and 'arguments', got ${shown(fn)}`);
    if (typeof fn.name !== 'string') throw invalid(`${at}.function.name: must be a string, got ${shown(fn.name)}`);
    const args = fn.arguments;
    if (typeof args !== 'string' && args !== undefined && args !== null && !isObj(args)) {
      throw invalid(`${at}.function.arguments: must be a string (the arguments as JSON text) or an object, got ${shown(args)}`);
    }
  });
}

function checkMessage(m: unknown, i: number): ChatMessage {
  const where = `messages[${i}]`;
  if (!isObj(m)) throw invalid(`${where}: must be an object`);
  const role = m.role;
  if (typeof role !== 'string') throw invalid(`${where}.role: must be a string`);
  if (!ROLE_SET.has(role)) {
    throw invalid(`${where}.role: unknown role ${shown(role)}; expected one of ${ROLES.map((r) => `'${r}'`).join(', ')}`);
  }
  const r = role as Role;
  checkContent(m, where, r);
  if (m.name !== undefined && m.name !== null && typeof m.name !== 'string') throw invalid(`${where}.name: must be a string, got ${shown(m.name)}`);
  if (r === 'function' && typeof m.name !== 'string') throw invalid(`${where}.name: field is required for function messages`);
  if (r === 'tool') {
    if (m.tool_call_id === undefined || m.tool_call_id === null) throw invalid(`${where}.tool_call_id: field is required for tool messages`);
    if (typeof m.tool_call_id !== 'string') throw invalid(`${where}.tool_call_id: must be a string, got ${shown(m.tool_call_id)}`);
  }
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (r !== 'assistant') throw invalid(`${where}.tool_calls: only assistant messages can carry tool calls`);
    checkToolCalls(m.tool_calls, `${where}.tool_calls`);
  }
  if (m.reasoning_content !== undefined && m.reasoning_content !== null && typeof m.reasoning_content !== 'string') {
    throw invalid(`${where}.reasoning_content: must be a string, got ${shown(m.reasoning_content)}`);
  }
  return m as ChatMessage;
}

export function parseMessages(body: Body): ChatMessage[] {
  const raw = body.messages;
  if (!Array.isArray(raw)) throw invalid('messages: field is required and must be an array');
  if (raw.length === 0) throw invalid('messages: Validation error: messages cannot be empty');
  return raw.map(checkMessage);
}
