/**
 * Turns OpenAI-wire messages and tools into the values templates are written against
 * (request-pipeline.md §4.3, §4.5; ecosystem.md §2.3). Real templates assume Python transformers'
 * preprocessing: `content` is a string (Qwen3 does `'</think>' in message.content`, which fails on
 * null), and tool-call `arguments` are objects (templates `tojson` them).
 */
import { jsonDepthProblem } from '../util/json-depth.js';
import { ChatTemplateError } from './chat-template-error.js';
import type { ContentFormat } from './chat-template-analysis.js';

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
  function: { name: string; description?: string; parameters?: unknown; strict?: boolean; [key: string]: unknown };
}

const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);
const MEDIA_TYPES: Record<string, string> = {
  image_url: 'image',
  image: 'image',
  video_url: 'video',
  video: 'video',
  audio_url: 'audio',
  input_audio: 'audio',
  audio: 'audio',
};

/** String-format templates get text parts joined by newlines; media has no placeholder here. */
function flattenParts(parts: ContentPart[]): string | ContentPart[] {
  const texts = parts.filter((p) => TEXT_TYPES.has(p.type) && typeof p.text === 'string').map((p) => p.text as string);
  // SMG leaves an array with no usable part as it is; the template decides whether that is an error.
  return texts.length > 0 ? texts.join('\n') : parts;
}

/** List-format templates get media parts reduced to `{type}` markers, moved first (stable). */
function listParts(parts: ContentPart[]): ContentPart[] {
  const media: ContentPart[] = [];
  const rest: ContentPart[] = [];
  for (const p of parts) {
    const kind = MEDIA_TYPES[p.type];
    if (kind) media.push({ type: kind });
    else rest.push(p);
  }
  return [...media, ...rest];
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  // JSON inside a string escapes the body's own depth check; templates walk the value recursively.
  const tooDeep = jsonDepthProblem(args);
  if (tooDeep) throw new ChatTemplateError(`Failed to parse tool call arguments as JSON: ${tooDeep}`);
  try {
    return JSON.parse(args);
  } catch (err) {
    throw new ChatTemplateError(`Failed to parse tool call arguments as JSON: '${args}'. Error: ${(err as Error).message}`);
  }
}

/** Text of a message's content, for appending a prefilled assistant turn verbatim. */
export function contentText(content: ChatMessageInput['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  const flat = flattenParts(content);
  return typeof flat === 'string' ? flat : '';
}

export function normalizeMessages(messages: readonly ChatMessageInput[], format: ContentFormat): Record<string, unknown>[] {
  return messages.map((message) => {
    const out: Record<string, unknown> = {};
    // Absent optional fields must stay absent (`is defined` tests), so undefined keys are dropped.
    for (const [k, v] of Object.entries(message)) if (v !== undefined) out[k] = v;
    const content = message.content;
    // SMG passes null here; '' is what vLLM/transformers pass and what templates cope with.
    if (content == null) out.content = '';
    else if (Array.isArray(content)) out.content = format === 'openai' ? listParts(content) : flattenParts(content);
    if (Array.isArray(message.tool_calls)) {
      out.tool_calls = message.tool_calls.map((call) => ({
        ...call,
        function: { ...call.function, arguments: parseArguments(call.function?.arguments) },
      }));
    }
    return out;
  });
}

/** `[{type:"function", function:{name, description?, parameters, strict?}}]`; parameters default to {}. */
export function normalizeTools(tools: readonly ToolInput[]): Record<string, unknown>[] {
  return tools.map((tool) => {
    const fn = tool.function;
    const out: Record<string, unknown> = { name: fn.name };
    if (fn.description !== undefined && fn.description !== null) out.description = fn.description;
    out.parameters = fn.parameters ?? {};
    if (fn.strict !== undefined && fn.strict !== null) out.strict = fn.strict;
    return { type: 'function', function: out };
  });
}
