/**
 * Turns OpenAI-wire messages and tools into the values templates are written against, as vLLM
 * hands them to transformers (vllm/entrypoints/chat_utils.py, `_parse_chat_message_content` and
 * `_postprocess_messages`; serving_chat's `tool.model_dump()`), so a prompt renders as it does
 * there (request-pipeline.md §4.3, §4.5):
 *
 * - a message keeps role, content, tool_calls (assistant), reasoning + reasoning_content
 *   (assistant, from either field), tool_call_id (tool) and a string name; nothing else;
 * - content in the template's format: "string" joins the text parts with '\n' (null or [] is
 *   ''), "openai" gives `[{type: 'text', text}]` parts (null or [] is []);
 * - tool-call `arguments` are json.loads'ed (numbers and key order kept, python-json.ts); an
 *   object passes through, and '' or null becomes {};
 * - a tool is `{type: 'function', function: {name, description, parameters, ...}}` with None for
 *   an absent description or parameters.
 */
import { jsonDepthProblem } from '../../util/json-depth.js';
import { ChatTemplateError } from './chat-template-error.js';
import type { ContentFormat } from './chat-template-analysis.js';
import { parsePythonJson, pythonValue } from './template-compiler/python-json.js';

export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolCallInput {
  id?: string;
  type?: string;
  function: { name: string; arguments?: string | Record<string, unknown> | null; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ChatMessageInput {
  role: string;
  content?: string | ContentPart[] | null;
  tool_calls?: ToolCallInput[] | null;
  [key: string]: unknown;
}

export interface ToolInput {
  type?: string;
  function: { name: string; description?: string | null; parameters?: unknown; strict?: boolean; [key: string]: unknown };
  [key: string]: unknown;
}

/** Part types whose text vLLM keeps (`_parse_chat_message_content_part`). */
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text', 'refusal', 'thinking']);
const MEDIA_TYPES: Record<string, string> = {
  image_url: 'image',
  input_image: 'image',
  image: 'image',
  video_url: 'video',
  video: 'video',
  audio_url: 'audio',
  input_audio: 'audio',
  audio: 'audio',
};

/** The text of a part (`text`, or the field named by its type: `refusal`, `thinking`), or null. */
function partText(part: ContentPart | string): string | null {
  if (typeof part === 'string') return part;
  if (!TEXT_TYPES.has(part.type)) return null;
  const value = part.type === 'refusal' || part.type === 'thinking' ? part[part.type] ?? part.text : part.text;
  return typeof value === 'string' ? value : null;
}

/** Content as the template takes it, in `format`. */
function formatContent(content: ChatMessageInput['content'], format: ContentFormat): unknown {
  const parts: Array<ContentPart | string> = content == null ? [] : typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  if (format === 'openai') {
    const out: unknown[] = [];
    for (const p of parts) {
      const text = partText(p);
      if (text !== null) out.push({ type: 'text', text });
      else if (typeof p !== 'string' && MEDIA_TYPES[p.type]) out.push({ type: MEDIA_TYPES[p.type] });
    }
    return out;
  }
  const texts: string[] = [];
  for (const p of parts) {
    const text = partText(p);
    if (text !== null) texts.push(text);
  }
  return texts.join('\n');
}

/** vLLM's `_postprocess_messages`: json.loads a string, keep an object, {} for '' / null. */
function parseArguments(args: unknown): unknown {
  if (args === undefined || args === null || args === '' || args === false || args === 0) return {};
  if (typeof args !== 'string') return pythonValue(args);
  // JSON inside a string escapes the body's own depth check; templates walk the value recursively.
  const tooDeep = jsonDepthProblem(args);
  if (tooDeep) throw new ChatTemplateError(`Failed to parse tool call arguments as JSON: ${tooDeep}`);
  try {
    return parsePythonJson(args);
  } catch (err) {
    throw new ChatTemplateError(`Failed to parse tool call arguments as JSON: '${args}'. Error: ${(err as Error).message}`);
  }
}

/** Text of a message's content, for appending a prefilled assistant turn verbatim. */
export function contentText(content: ChatMessageInput['content']): string {
  return formatContent(content, 'string') as string;
}

/** Python's `a or b`. */
function pyOr(a: unknown, b: unknown): unknown {
  const falsy = a === undefined || a === null || a === '' || a === false || a === 0 || (Array.isArray(a) && a.length === 0);
  return falsy ? b : a;
}

export function normalizeMessages(messages: readonly ChatMessageInput[], format: ContentFormat): Record<string, unknown>[] {
  return messages.map((message) => {
    const role = message.role;
    const out: Record<string, unknown> = { role, content: formatContent(message.content, format) };
    if (role === 'assistant') {
      if (message.tool_calls !== undefined && message.tool_calls !== null) {
        out.tool_calls = Array.isArray(message.tool_calls)
          ? message.tool_calls.map((call) => ({
              ...call,
              function: { ...call.function, arguments: parseArguments(call.function?.arguments) },
            }))
          : message.tool_calls;
      }
      const reasoning = pyOr(message.reasoning, message.reasoning_content);
      if (reasoning !== undefined && reasoning !== null) {
        out.reasoning = reasoning;
        out.reasoning_content = reasoning;
      }
    } else if (role === 'tool' && 'tool_call_id' in message) {
      out.tool_call_id = message.tool_call_id;
    }
    if (typeof message.name === 'string') out.name = message.name;
    return out;
  });
}

/** `ChatCompletionToolsParam.model_dump()`: declared fields first (None when absent), then extras. */
export function normalizeTools(tools: readonly ToolInput[]): Record<string, unknown>[] {
  return tools.map((tool) => {
    const fn = tool.function;
    const out: Record<string, unknown> = {
      name: fn.name,
      description: fn.description ?? null,
      parameters: fn.parameters === undefined || fn.parameters === null ? null : pythonValue(fn.parameters),
    };
    for (const [k, v] of Object.entries(fn)) if (!(k in out) && v !== undefined) out[k] = pythonValue(v);
    const dumped: Record<string, unknown> = { type: 'function', function: out };
    for (const [k, v] of Object.entries(tool)) if (k !== 'type' && k !== 'function' && v !== undefined) dumped[k] = pythonValue(v);
    return dumped;
  });
}
