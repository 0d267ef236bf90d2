/**
 * /v1/messages request conversion (request-pipeline §3.3): every content-block kind into the chat
 * messages templates render, tools and tool_choice into chat tools and the ToolSelection, thinking
 * and sampling fields, and the validation texts.
 */
import { describe, expect, it } from 'vitest';
import { parseMessagesRequest } from '../../src/api/anthropic/request.js';
import { serverToolTypes } from '../../src/api/anthropic/tools.js';
import { PipelineError } from '../../src/pipeline/errors.js';

const base = { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };
const parse = (over: Record<string, unknown>) => parseMessagesRequest({ ...base, ...over });

function rejection(body: Record<string, unknown>, opts = {}): PipelineError {
  try {
    parseMessagesRequest(body, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    return err as PipelineError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}
const errorText = (over: Record<string, unknown>) => {
  const err = rejection({ ...base, ...over });
  expect(err.status).toBe(400);
  return err.message;
};

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  cache_control: { type: 'ephemeral' },
};
const weatherChat = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.input_schema },
};

describe('messages conversion', () => {
  it('a system string and a user string', () => {
    const r = parse({ system: 'Be brief.' });
    expect(r.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('system text blocks are joined by a newline; cache_control is accepted and dropped', () => {
    const r = parse({
      system: [
        { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
    });
    expect(r.messages[0]).toEqual({ role: 'system', content: 'You are Claude Code.\nBe brief.' });
  });

  it('user text blocks become text parts (without cache_control or citations)', () => {
    const r = parse({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'b' }] }],
    });
    expect(r.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
  });

  it('a tool round trip: assistant text + tool_use → tool_calls; each tool_result → its own tool message, in block order', () => {
    const r = parse({
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two cities.', signature: 'sig' },
            { type: 'thinking', thinking: 'Call twice.', signature: 'sig' },
            { type: 'text', text: 'Let me ' },
            { type: 'text', text: 'check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'Rain' }, { type: 'text', text: '12C' }], is_error: false },
            { type: 'text', text: 'Thanks, summarize.' },
          ],
        },
      ],
    });
    expect(r.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
        reasoning_content: 'Two cities.\nCall twice.',
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Rain\n12C' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks, summarize.' }] },
    ]);
  });

  it('an assistant turn with only tool_use has null content; a tool_result without content is empty', () => {
    const r = parse({
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
      ],
    });
    expect(r.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
    });
    expect(r.messages[2]).toEqual({ role: 'tool', tool_call_id: 't1', content: '' });
    expect(r.continueFinalMessage).toBe(false);
  });

  it('a system-role message inside messages stays in place, its text blocks joined', () => {
    const r = parse({
      system: 'top',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: [{ type: 'text', text: 'mid' }, { type: 'text', text: 'note' }] },
        { role: 'user', content: 'b' },
      ],
    });
    expect(r.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'top'],
      ['user', 'a'],
      ['system', 'mid\nnote'],
      ['user', 'b'],
    ]);
  });

  it('blocks with no chat form (redacted thinking, server tool results) are skipped', () => {
    const r = parse({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'search_result', source: 's', title: 't', content: [] }] },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xx' }, { type: 'text', text: 'ok' }] },
        { role: 'user', content: 'more' },
      ],
    });
    expect(r.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'more' },
    ]);
  });

  it('a final assistant turn with text is a prefill the answer continues', () => {
    expect(parse({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Sure,' }] }).continueFinalMessage).toBe(true);
    expect(parse({}).continueFinalMessage).toBe(false);
  });

  it('image and document blocks are refused by name (no multimodal path)', () => {
    const img = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const err = rejection({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, img] }] });
    expect(err.status).toBe(400);
    expect(err.code).toBe('multimodal_not_supported');
    expect(err.message).toBe(
      "messages[0].content[1]: 'image' content blocks are not supported: this gateway serves text-only models (no multimodal input path)",
    );
    const inResult = rejection({
      ...base,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [img] }] }],
    });
    expect(inResult.message).toMatch(/^messages\[0\]\.content\[0\]\.content\[0\]: 'image' content blocks are not supported/);
    const doc = rejection({ ...base, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: 'x' } }] }] });
    expect(doc.message).toMatch(/'document' content blocks are not supported/);
  });
});

describe('tools and tool_choice', () => {
  it('custom tools (no type or type "custom") become chat function tools; server tools are ignored', () => {
    const r = parse({
      tools: [
        weather,
        { type: 'custom', name: 'lookup', input_schema: { type: 'object' } },
        { type: 'bash_20250124', name: 'bash' },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
    });
    expect(r.tools).toEqual([weatherChat, { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }]);
    // No tool_choice with tools means auto, so the tool parser runs.
    expect(r.toolSelection).toEqual({ mode: 'auto' });
    // SMG passes no tool_choice kwarg to the template.
    expect(r.toolChoice).toBeUndefined();
  });

  it('only server tools: nothing for the template, no selection', () => {
    const r = parse({ tools: [{ type: 'bash_20250124', name: 'bash' }] });
    expect(r.tools).toBeUndefined();
    expect(r.toolSelection).toBeUndefined();
  });

  it('tool_choice auto / any / tool / none → the chat selections', () => {
    expect(parse({ tools: [weather], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }).toolSelection).toEqual({ mode: 'auto' });
    expect(parse({ tools: [weather], tool_choice: { type: 'any' } }).toolSelection).toEqual({ mode: 'required' });
    expect(parse({ tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' } }).toolSelection).toEqual({
      mode: 'function',
      name: 'get_weather',
    });
    expect(parse({ tools: [weather], tool_choice: { type: 'none' } }).toolSelection).toEqual({ mode: 'none' });
    // none needs no tools.
    expect(parse({ tool_choice: { type: 'none' } }).toolSelection).toBeUndefined();
  });

  it("SMG's tool_choice texts", () => {
    expect(errorText({ tool_choice: { type: 'auto' } })).toBe(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    );
    expect(errorText({ tools: [], tool_choice: { type: 'any' } })).toBe(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    );
    expect(errorText({ tools: [weather], tool_choice: { type: 'tool', name: 'nope' } })).toBe(
      "Invalid value for 'tool_choice': tool 'nope' not found in 'tools'.",
    );
    expect(errorText({ tools: [weather], tool_choice: { type: 'required' } })).toBe(
      "tool_choice.type: unsupported value 'required'; expected 'auto', 'any', 'tool' or 'none'",
    );
  });

  it('a named choice may name a server tool or a name an MCP toolset enables', () => {
    expect(parse({ tools: [weather, { type: 'bash_20250124', name: 'bash' }], tool_choice: { type: 'tool', name: 'bash' } }).toolSelection).toEqual({
      mode: 'function',
      name: 'bash',
    });
    const mcp = { type: 'mcp_toolset', mcp_server_name: 'srv', default_config: { enabled: false }, configs: { search: { enabled: true } } };
    const servers = [{ type: 'url', url: 'https://mcp.example', name: 'srv' }];
    expect(parse({ tools: [mcp], mcp_servers: servers, tool_choice: { type: 'tool', name: 'search' } }).tools).toBeUndefined();
    expect(errorText({ tools: [mcp], mcp_servers: servers, tool_choice: { type: 'tool', name: 'other' } })).toBe(
      "Invalid value for 'tool_choice': tool 'other' not found in 'tools'.",
    );
  });

  it('mcp_toolset tools need mcp_servers', () => {
    expect(errorText({ tools: [{ type: 'mcp_toolset', mcp_server_name: 'srv' }] })).toBe('mcp_servers is required when mcp_toolset tools are present');
    expect(errorText({ tools: [{ type: 'mcp_toolset', mcp_server_name: 'srv' }], mcp_servers: [] })).toBe(
      'mcp_servers is required when mcp_toolset tools are present',
    );
  });

  it('a custom tool needs a name and an input_schema object', () => {
    expect(errorText({ tools: [{ input_schema: { type: 'object' } }] })).toBe('tools[0].name: field is required');
    expect(errorText({ tools: [{ name: 'x' }] })).toBe('tools[0].input_schema: field is required and must be an object');
  });
});

describe('fields', () => {
  it('defaults: n=1, no logprobs, no template kwargs, thinking = template default', () => {
    const r = parse({});
    expect(r).toMatchObject({
      model: 'm',
      maxTokens: 64,
      n: 1,
      stop: [],
      stream: false,
      logprobs: false,
      topLogprobs: undefined,
      chatTemplateKwargs: {},
      reasoningEffort: undefined,
      addGenerationPrompt: true,
      thinking: null,
      separateReasoning: true,
      temperature: undefined,
      topP: undefined,
      topK: undefined,
      tools: undefined,
      toolSelection: undefined,
    });
  });

  it('thinking enabled / adaptive → on, disabled → off; reasoning is split unless thinking is disabled', () => {
    expect(parse({ thinking: { type: 'enabled', budget_tokens: 2048 } })).toMatchObject({ thinking: true, separateReasoning: true });
    expect(parse({ thinking: { type: 'adaptive' } })).toMatchObject({ thinking: true, separateReasoning: true });
    expect(parse({ thinking: { type: 'disabled' } })).toMatchObject({ thinking: false, separateReasoning: false });
    expect(parse({})).toMatchObject({ thinking: null, separateReasoning: true });
    expect(errorText({ thinking: { type: 'on' } })).toBe("thinking.type: unsupported value 'on'; expected 'enabled', 'adaptive' or 'disabled'");
  });

  it('sampling fields, stop_sequences, stream and the accepted-but-unused fields', () => {
    const r = parse({
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['\n\nHuman:', 'END'],
      stream: true,
      metadata: { user_id: 'u1' },
      service_tier: 'auto',
      container: 'c1',
      output_config: { effort: 'low' },
      context_management: { edits: [] },
    });
    expect(r).toMatchObject({ temperature: 0.5, topP: 0.9, topK: 40, stop: ['\n\nHuman:', 'END'], stream: true });
    expect(parse({ top_k: 0 }).topK).toBeUndefined();
  });

  it('validation texts', () => {
    expect(errorText({ max_tokens: undefined })).toBe('max_tokens: field is required');
    expect(errorText({ max_tokens: 0 })).toBe('max_tokens must be greater than 0');
    expect(errorText({ model: '' })).toBe('model field is required and cannot be empty');
    expect(errorText({ messages: [] })).toBe('messages array is required and cannot be empty');
    expect(errorText({ temperature: 1.5 })).toBe('temperature: must be in [0, 1], got 1.5');
    expect(errorText({ top_p: 0 })).toBe('top_p must be in (0, 1] - greater than 0.0 and at most 1.0');
    expect(errorText({ top_k: -1 })).toBe('top_k must be a non-negative integer');
    expect(errorText({ stop_sequences: 'END' })).toBe('stop_sequences: must be an array of strings');
    expect(errorText({ stop_sequences: [''] })).toBe('stop_sequences: stop sequences cannot be empty');
    expect(errorText({ messages: [{ role: 'tool', content: 'x' }] })).toBe("messages[0].role: must be 'user', 'assistant' or 'system', got 'tool'");
    expect(errorText({ messages: [{ role: 'user' }] })).toBe('messages[0].content: field is required');
    expect(errorText({ system: [{ type: 'image', source: {} }] })).toMatch(/^system\[0\]: 'image' content blocks are not supported/);
    expect(rejection([] as unknown as Record<string, unknown>).message).toBe('Invalid JSON data: request body must be a JSON object');
  });

  it('count_tokens needs no max_tokens and ignores sampling', () => {
    const r = parseMessagesRequest({ model: 'm', messages: base.messages, temperature: 7, stop_sequences: 'x' }, { countOnly: true });
    expect(r.maxTokens).toBeUndefined();
    expect(r.stop).toEqual([]);
    expect(r.stream).toBe(false);
  });
});

describe('server tools', () => {
  it('are dropped from the chat tools and named once each for the access log; max_tokens is a ceiling', () => {
    const body = {
      model: 'm',
      max_tokens: 32000,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [
        { name: 'get_weather', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search' },
        { type: 'bash_20250124', name: 'bash' },
        { type: 'web_search_20250305', name: 'web_search_2' },
      ],
    };
    const r = parseMessagesRequest(body);
    expect(r.tools?.map((t) => (t.function as { name: string }).name)).toEqual(['get_weather']);
    expect(serverToolTypes(body)).toEqual(['web_search_20250305', 'bash_20250124']);
    expect(r.maxTokensCeiling).toBe(true);
  });
});
