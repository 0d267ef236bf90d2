/**
 * Seeded random render contexts for chat templates, shaped like what reaches a template (and some
 * that make templates raise): system/user/assistant/tool turns, string or array-of-parts content,
 * assistant tool calls with object or string arguments, reasoning_content, tool lists with nested
 * JSON schemas (unicode, quotes, newlines, numbers, booleans, null), add_generation_prompt and
 * thinking kwargs present or absent, special tokens present or absent.
 */
import type { RenderRequest } from '../../src/pipeline/chat-prompt/chat-template.js';
import type { ChatMessageInput, ToolInput } from '../../src/pipeline/chat-prompt/chat-template-messages.js';
import { rng } from './splits.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const chance = (r: Rand, p: number): boolean => r() < p;

const WORDS = [
  'hi',
  'Hello, world!',
  'São Paulo',
  '東京',
  'naïve "quote"',
  "it's",
  'back\\slash',
  'line\nbreak',
  '  padded  ',
  '\n\nleading newlines',
  'trailing newline\n',
  '😀 emoji',
  '\u2028sep',
  'tab\there',
  '{"json": true}',
  '<b>html</b>',
  '',
];

function text(r: Rand, maxWords = 4): string {
  const n = Math.floor(r() * maxWords) + 1;
  return Array.from({ length: n }, () => pick(r, WORDS)).join(pick(r, [' ', '', '\n']));
}

/** Content a Qwen3-style template treats specially: think blocks and tool responses. */
function assistantText(r: Rand): string {
  switch (Math.floor(r() * 5)) {
    case 0:
      return `<think>\n${text(r)}\n</think>\n\n${text(r)}`;
    case 1:
      return `${text(r)}</think>${text(r)}`;
    case 2:
      return '';
    default:
      return text(r);
  }
}

function jsonValue(r: Rand, depth: number): unknown {
  const k = Math.floor(r() * (depth > 2 ? 5 : 8));
  switch (k) {
    case 0:
      return text(r, 2);
    case 1:
      return pick(r, [0, 1, -3, 2.5, 1e-7, 12345678901, 2.0, -0.5]);
    case 2:
      return pick(r, [true, false, null]);
    case 3:
      return pick(r, ['string', 'integer', 'number', 'boolean', 'array', 'object']);
    case 4:
      return [];
    case 5:
      return [jsonValue(r, depth + 1), jsonValue(r, depth + 1)];
    case 6:
      return {};
    default: {
      const o: Record<string, unknown> = {};
      const n = 1 + Math.floor(r() * 3);
      for (let i = 0; i < n; i++) o[pick(r, ['type', 'description', 'enum', 'items', 'default', 'é_key', 'quote"key', 'nl\nkey', '10', 'a'])] = jsonValue(r, depth + 1);
      return o;
    }
  }
}

function schema(r: Rand): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    properties[pick(r, ['city', 'unit', 'query', 'days', 'filters', 'naïve', 'x_y'])] = {
      type: pick(r, ['string', 'integer', 'number', 'boolean', 'array', 'object']),
      description: text(r, 3),
      ...(chance(r, 0.4) ? { enum: [text(r, 1), text(r, 1)] } : {}),
      ...(chance(r, 0.3) ? { default: jsonValue(r, 1) } : {}),
      ...(chance(r, 0.3) ? { items: jsonValue(r, 1) } : {}),
    };
  }
  return { type: 'object', properties, required: Object.keys(properties).slice(0, 1) };
}

export function randomTools(r: Rand): unknown[] {
  return Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
    type: 'function',
    function: {
      name: pick(r, ['get_weather', 'search', 'calc', 'naïve_tool']),
      ...(chance(r, 0.8) ? { description: text(r) } : {}),
      parameters: chance(r, 0.9) ? schema(r) : {},
      ...(chance(r, 0.2) ? { strict: chance(r, 0.5) } : {}),
    },
  }));
}

function toolCall(r: Rand): Record<string, unknown> {
  const args = jsonValue(r, 0);
  const argsObject = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : { value: args };
  const call = {
    name: pick(r, ['get_weather', 'search', 'calc']),
    arguments: pick(r, [argsObject, JSON.stringify(argsObject), '{oops', ''] as unknown[]),
  };
  // Some callers send the OpenAI wrapper, some the bare function.
  return chance(r, 0.8) ? { id: `call_${Math.floor(r() * 1000)}`, type: 'function', function: call } : call;
}

function content(r: Rand, role: string): unknown {
  const roll = r();
  if (roll < 0.08) return null;
  if (roll < 0.12) return undefined;
  if (roll < 0.25) {
    return Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      chance(r, 0.7) ? { type: 'text', text: text(r) } : { type: 'image_url', image_url: { url: 'https://x/y.png' } },
    );
  }
  if (role === 'assistant') return assistantText(r);
  if (role === 'tool' && chance(r, 0.5)) return `<tool_response>${text(r)}</tool_response>`;
  return text(r);
}

export function randomMessage(r: Rand, role: string): Record<string, unknown> {
  const m: Record<string, unknown> = { role };
  const c = content(r, role);
  if (c !== undefined) m.content = c;
  if (role === 'assistant') {
    if (chance(r, 0.35)) m.tool_calls = Array.from({ length: 1 + Math.floor(r() * 3) }, () => toolCall(r));
    if (chance(r, 0.2)) m.reasoning_content = pick(r, [text(r), '', null]);
  }
  if (role === 'tool' && chance(r, 0.7)) m.tool_call_id = `call_${Math.floor(r() * 1000)}`;
  return m;
}

function randomMessages(r: Rand): unknown[] {
  const n = Math.floor(r() * 9);
  const out: unknown[] = [];
  if (n > 0 && chance(r, 0.5)) out.push(randomMessage(r, 'system'));
  for (let i = out.length; i < n; i++) {
    const role = chance(r, 0.05) ? pick(r, ['developer', 'ipython', 'system']) : pick(r, ['user', 'assistant', 'tool', 'user', 'assistant']);
    out.push(randomMessage(r, role));
  }
  return out;
}

export interface ContextOptions {
  /** Keys of special tokens to set (each present with probability 1/2). */
  readonly specials?: Readonly<Record<string, string>>;
}

export function randomContext(r: Rand, options: ContextOptions = {}): Record<string, unknown> {
  const ctx: Record<string, unknown> = { messages: randomMessages(r) };
  if (chance(r, 0.85)) ctx.add_generation_prompt = chance(r, 0.6);
  if (chance(r, 0.45)) ctx.tools = chance(r, 0.9) ? randomTools(r) : pick(r, [[], null, 'not a list']);
  if (chance(r, 0.5)) ctx.enable_thinking = pick(r, [true, false, 'no', 0, null]);
  if (chance(r, 0.1)) ctx.continue_final_message = chance(r, 0.5);
  for (const [key, value] of Object.entries(options.specials ?? {})) if (chance(r, 0.5)) ctx[key] = value;
  if (chance(r, 0.03)) ctx.namespace = 1; // a kwarg clashing with a builtin
  if (chance(r, 0.03)) ctx.messages = pick(r, [null, 'text', {}, [{}], [{ role: 'user' }]]);
  if (chance(r, 0.05)) ctx.loop = { index0: 5 };
  return ctx;
}

export function contexts(seed: number, count: number, options: ContextOptions = {}): Record<string, unknown>[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => randomContext(r, options));
}

/** A ChatTemplate.render request: the same shapes, plus prefill and kwargs as the gateway sends. */
export function randomRequest(r: Rand): RenderRequest {
  const messages = randomMessages(r) as ChatMessageInput[];
  if (chance(r, 0.3)) messages.push(randomMessage(r, 'assistant') as ChatMessageInput);
  const kwargs: Record<string, unknown> = {};
  if (chance(r, 0.4)) kwargs.enable_thinking = pick(r, [true, false]);
  if (chance(r, 0.2)) kwargs.reasoning_effort = pick(r, ['low', 'none']);
  if (chance(r, 0.1)) kwargs.custom = pick(r, [text(r), 3, [1, 2], { k: 'v' }]);
  if (chance(r, 0.03)) kwargs.namespace = 'clash';
  if (chance(r, 0.03)) kwargs.raise_exception = 'filtered out by ChatTemplate';
  return {
    messages,
    tools: chance(r, 0.4) ? (randomTools(r) as ToolInput[]) : chance(r, 0.5) ? null : undefined,
    addGenerationPrompt: pick(r, [true, false, undefined]),
    continueFinalMessage: chance(r, 0.3),
    kwargs: chance(r, 0.7) ? kwargs : null,
  };
}

export function requests(seed: number, count: number): RenderRequest[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => randomRequest(r));
}
