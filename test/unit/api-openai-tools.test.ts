/**
 * tool_choice on chat: validation texts (request-pipeline §3.1.3), tool filtering and the
 * forced-call JSON-schema constraint (§10.2), skip_special_tokens (§7.3) and reading the
 * constrained output back as tool calls, streamed and not (§10.4).
 */
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../src/api/openai/chat-request.js';
import { type ChatMeta, chatJson, chatSse } from '../../src/api/openai/chat-respond.js';
import { collectChoices } from '../../src/pipeline/collect.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import type { ParsedItem } from '../../src/pipeline/parsers/types.js';
import { chatOutputPlan } from '../../src/pipeline/output/chat-output-plan.js';
import { TOOL_PARSERS } from '../../src/pipeline/parsers/tools/registry.js';
import { normalizeTools } from '../../src/pipeline/chat-prompt/chat-template-messages.js';
import { parseForcedToolCalls, toolCallIds } from '../../src/pipeline/tools/tool-calls.js';
import type { ToolCallShape } from '../../src/pipeline/tools/tool-choice.js';
import { choiceEvents, eventStream, ssePayloads } from '../support/events.js';
import {
  buildToolConstraint,
  chatSkipSpecialTokens,
  filterTools,
  requiredArraySchema,
  templateTools,
  type ToolSelection,
} from '../../src/pipeline/tools/tool-choice.js';

const params = (prop: string) => ({ type: 'object', properties: { [prop]: { type: 'string' } }, required: [prop] });
const fn = (name: string, parameters: unknown = params('city'), extra: Record<string, unknown> = {}) => ({
  type: 'function',
  function: { name, parameters, ...extra },
});
const TOOLS = [fn('get_weather'), fn('get_time', params('zone'))];

const chat = (over: Record<string, unknown>) =>
  parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: TOOLS, ...over });

function chatError(over: Record<string, unknown>): string {
  try {
    chat(over);
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).status).toBe(400);
    return (err as PipelineError).message;
  }
  throw new Error(`expected ${JSON.stringify(over)} to be rejected`);
}

const allowed = (mode: string, tools: unknown[]) => ({ type: 'allowed_tools', mode, tools });

describe('tool_choice validation', () => {
  it.each([
    [{ tools: undefined, tool_choice: 'auto' }, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."],
    [{ tool_choice: { type: 'function', function: { name: 'nope' } } }, "Invalid value for 'tool_choice': function 'nope' not found in 'tools'."],
    [{ tool_choice: allowed('any', []) }, "Invalid value for 'tool_choice.mode': must be 'auto' or 'required', got 'any'."],
    [
      { tool_choice: allowed('auto', [{ type: 'function', name: 'get_weather' }, { type: 'function', name: 'x' }]) },
      "Invalid value for 'tool_choice.tools': tool 'x' not found in 'tools'.",
    ],
    [
      { tool_choice: allowed('required', [{ type: 'mcp', server_label: 'deepwiki' }]) },
      "Invalid value for 'tool_choice.tools': Chat Completion API only supports function tools, got 'mcp:deepwiki'.",
    ],
    [
      { tool_choice: allowed('required', [{ type: 'file_search' }]) },
      "Invalid value for 'tool_choice.tools': Chat Completion API only supports function tools, got 'file_search'.",
    ],
  ])('%j → %s', (over, message) => {
    expect(chatError(over)).toBe(message);
  });

  it('accepted forms map to a selection', () => {
    expect(chat({}).toolSelection).toEqual({ mode: 'auto' });
    expect(chat({ tool_choice: 'required' }).toolSelection).toEqual({ mode: 'required' });
    expect(chat({ tools: undefined }).toolSelection).toBeUndefined();
    expect(chat({ tools: undefined, tool_choice: 'none' }).toolSelection).toEqual({ mode: 'none' });
    expect(chat({ tool_choice: { type: 'function', function: { name: 'get_time' } } }).toolSelection).toEqual({
      mode: 'function',
      name: 'get_time',
    });
    const flat = allowed('required', [{ type: 'function', name: 'get_time' }]);
    expect(chat({ tool_choice: flat }).toolSelection).toEqual({ mode: 'allowed', required: true, names: ['get_time'] });
    // OpenAI's nested form reads the same.
    const nested = { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_weather' } }] } };
    expect(chat({ tool_choice: nested }).toolSelection).toEqual({ mode: 'allowed', required: false, names: ['get_weather'] });
    // The raw value still reaches the template kwargs untouched.
    expect(chat({ tool_choice: flat }).toolChoice).toEqual(flat);
  });
});

describe('tool filtering', () => {
  const names = (tools: Record<string, unknown>[]) => tools.map((t) => (t.function as { name: string }).name);
  it('named function → that tool; allowed_tools → the allowed names (both modes); otherwise all', () => {
    expect(names(filterTools(TOOLS, { mode: 'function', name: 'get_time' }))).toEqual(['get_time']);
    expect(names(filterTools(TOOLS, { mode: 'allowed', required: false, names: ['get_weather'] }))).toEqual(['get_weather']);
    expect(names(filterTools(TOOLS, { mode: 'allowed', required: true, names: ['get_time'] }))).toEqual(['get_time']);
    for (const mode of ['auto', 'required', 'none'] as const) expect(filterTools(TOOLS, { mode })).toBe(TOOLS);
  });

  it('template tools are the tools as sent: ChatTemplate dumps them as vLLM (model_dump: None for absent fields, extras kept)', () => {
    const tools = [
      { type: 'function', function: { name: 'a', description: 'A', parameters: { type: 'object' }, strict: true, x: 1 }, y: 2 },
      { type: 'function', function: { name: 'b' } },
    ];
    expect(JSON.stringify(normalizeTools(templateTools(tools) as never))).toBe(
      '[{"type":"function","function":{"name":"a","description":"A","parameters":{"type":"object"},"strict":true,"x":1},"y":2},' +
        '{"type":"function","function":{"name":"b","description":null,"parameters":null}}]',
    );
  });
});

describe('forced tool constraint', () => {
  it('named function → its parameters as json_schema', () => {
    const c = buildToolConstraint(filterTools(TOOLS, { mode: 'function', name: 'get_time' }), { mode: 'function', name: 'get_time' });
    expect(c).toEqual({ constraint: { kind: 'json_schema', schema: params('zone') }, shape: { kind: 'function', name: 'get_time' } });
  });

  it('auto / none / allowed auto → no constraint', () => {
    expect(buildToolConstraint(TOOLS, { mode: 'auto' })).toBeNull();
    expect(buildToolConstraint(TOOLS, { mode: 'none' })).toBeNull();
    expect(buildToolConstraint(TOOLS, { mode: 'allowed', required: false, names: ['get_time'] })).toBeNull();
    expect(buildToolConstraint([], { mode: 'required' })).toBeNull();
  });

  it('required / allowed required → the array schema over the (filtered) tools', () => {
    const c = buildToolConstraint(TOOLS, { mode: 'required' });
    expect(c?.shape).toEqual({ kind: 'array' });
    expect(JSON.stringify((c?.constraint as { schema: unknown }).schema)).toBe(
      '{"type":"array","minItems":1,"items":{"type":"object","anyOf":[' +
        '{"properties":{"name":{"type":"string","enum":["get_weather"]},"parameters":' + JSON.stringify(params('city')) + '},"required":["name","parameters"]},' +
        '{"properties":{"name":{"type":"string","enum":["get_time"]},"parameters":' + JSON.stringify(params('zone')) + '},"required":["name","parameters"]}]}}',
    );
    const sel: ToolSelection = { mode: 'allowed', required: true, names: ['get_time'] };
    const only = buildToolConstraint(filterTools(TOOLS, sel), sel);
    const anyOf = ((only?.constraint as { schema: Record<string, { anyOf: unknown[] }> }).schema.items).anyOf;
    expect(anyOf).toHaveLength(1);
  });

  it('$defs of every tool are merged at the top; equal duplicates are fine, conflicts are a 400', () => {
    const addr = { type: 'object', properties: { street: { type: 'string' } } };
    const withDefs = (name: string, defs: Record<string, unknown>) =>
      fn(name, { type: 'object', properties: { a: { $ref: '#/$defs/Address' } }, $defs: defs });
    const schema = requiredArraySchema([
      withDefs('a', { Address: addr }),
      // Same definition with keys in another order: not a conflict.
      withDefs('b', { Address: { properties: { street: { type: 'string' } }, type: 'object' }, Zip: { type: 'string' } }),
    ]);
    expect(schema.$defs).toEqual({ Address: addr, Zip: { type: 'string' } });
    // Each tool's parameters stay as given (their own $defs included).
    expect(JSON.stringify(schema.items)).toContain('"$defs":{"Address"');

    let err: unknown;
    try {
      requiredArraySchema([withDefs('a', { Address: addr }), withDefs('b', { Address: { type: 'string' } })]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PipelineError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_tool_configuration', validation: false });
    expect((err as PipelineError).message).toBe("Invalid tool configuration: Tool definition 'Address' has multiple conflicting schemas");
    expect(requiredArraySchema(TOOLS).$defs).toBeUndefined();
  });
});

describe('skip_special_tokens (§7.3)', () => {
  const rule = (requested: boolean, hasTools: boolean, mode: 'auto' | 'none' | 'required' | undefined, json: boolean) =>
    chatSkipSpecialTokens({ requested, hasTools, selection: mode && { mode }, jsonToolConstraint: json });
  it('JSON-schema tool constraint → request value; tools with tool_choice ≠ none → false; else request value', () => {
    expect(rule(true, true, 'required', true)).toBe(true);
    expect(rule(false, true, 'required', true)).toBe(false);
    expect(rule(true, true, 'auto', false)).toBe(false);
    expect(rule(true, true, 'required', false)).toBe(false);
    expect(rule(true, true, 'none', false)).toBe(true);
    expect(rule(true, false, undefined, false)).toBe(true);
    expect(rule(false, false, undefined, false)).toBe(false);
  });
});

describe('reading forced tool output', () => {
  /** Items as calls and leftover text, the way a response shows them. */
  const fold = (items: ParsedItem[]) => {
    const calls: Array<[number, string, string]> = [];
    let content = '';
    for (const it of items) {
      if (it.kind === 'text') content += it.text;
      if (it.kind === 'tool_start') calls.push([it.tool, it.name, '']);
      if (it.kind === 'tool_args') calls[it.tool][2] += it.text;
    }
    return { calls, content: content === '' ? null : content };
  };

  it('named function: whole text is the arguments, re-serialized compactly; bad JSON stays content', () => {
    expect(fold(parseForcedToolCalls('{ "city" : "Paris" }', { kind: 'function', name: 'get_weather' }))).toEqual({
      calls: [[0, 'get_weather', '{"city":"Paris"}']],
      content: null,
    });
    expect(fold(parseForcedToolCalls('{"city": "Par', { kind: 'function', name: 'f' }))).toEqual({ calls: [], content: '{"city": "Par' });
  });

  it('array: each element with a string name and parameters is a call; others are skipped', () => {
    const text = '[{"name":"a","parameters":{"x":1}},{"name":2,"parameters":{}},{"name":"b"},{"name":"c","parameters":[]}]';
    const r = fold(parseForcedToolCalls(text, { kind: 'array' }));
    expect(r.content).toBeNull();
    expect(r.calls).toEqual([
      [0, 'a', '{"x":1}'],
      [1, 'c', '[]'],
    ]);
    expect(fold(parseForcedToolCalls('{"name":"a"}', { kind: 'array' }))).toEqual({ calls: [], content: '{"name":"a"}' });
  });

  it('ids: call_ + 24 hex chars; Kimi models number after the calls already in the conversation', () => {
    expect(toolCallIds('Qwen/Qwen3-8B', [])('f', 0)).toMatch(/^call_[0-9a-f]{24}$/);
    const history = [{ role: 'assistant', tool_calls: [{}, {}] }, { role: 'user', tool_calls: [{}] }];
    expect(toolCallIds('moonshotai/Kimi-K2-Instruct', history)('f', 1)).toBe('functions.f:3');
    expect(toolCallIds('moonshotai/kimi-k3', history)('f', 0)).toBe('f_2');
  });
});

const collectChat = async (evs: AsyncIterable<GenEvent>, meta: ChatMeta) => chatJson(await collectChoices(evs, meta.n, meta.n), meta);

describe('chat responses with a forced tool', () => {
  const meta = (n = 1): ChatMeta => ({
    id: 'chatcmpl-1', created: 1, model: 'm', n, tokenizer: { decode: () => '' }, topLogprobs: null, includeUsage: false,
  });
  const named: ToolCallShape = { kind: 'function', name: 'get_weather' };
  const declared = [{ name: 'get_weather' }, { name: 'a' }, { name: 'b' }];
  const plan = (shape: ToolCallShape, idFor: (name: string, i: number) => string) =>
    chatOutputPlan(null, { kind: 'forced', shape, json: TOOL_PARSERS.get('json')!, tools: declared }, idFor);

  it('non-stream named: tool_calls, content null, finish tool_calls (length stays length)', async () => {
    const evs = choiceEvents(plan(named, () => 'call_abc'), false, ['{"city":', ' "Paris"}'], 'stop');
    const r = await collectChat(eventStream(evs), meta());
    const [c] = r.choices as Record<string, unknown>[];
    expect(JSON.stringify(c.message)).toBe(
      '{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}],"reasoning_content":null}',
    );
    expect(c.finish_reason).toBe('tool_calls');

    const cut = await collectChat(eventStream(choiceEvents(plan(named, () => 'call_abc'), false, ['{"city":'], 'length')), meta());
    const [k] = cut.choices as Record<string, unknown>[];
    expect(k.message).toEqual({ role: 'assistant', content: '{"city":', reasoning_content: null });
    expect(k.finish_reason).toBe('length');
  });

  it('non-stream required: the array becomes calls', async () => {
    const evs = choiceEvents(plan({ kind: 'array' }, (_, i) => `call_${i}`), false, ['[{"name":"a","parameters":{}},{"name":"b","parameters":{"q":1}}]'], 'stop');
    const r = await collectChat(eventStream(evs), meta());
    const [c] = r.choices as { message: { tool_calls: { id: string }[] }; finish_reason: string }[];
    expect(c.message.tool_calls.map((t) => t.id)).toEqual(['call_0', 'call_1']);
    expect(c.finish_reason).toBe('tool_calls');
  });

  it('stream named: role, tool name chunk, verbatim argument chunks, finish tool_calls', () => {
    const evs = choiceEvents(plan(named, () => 'call_abc'), true, ['{"city":', ' "Paris"}'], 'stop');
    const out = ssePayloads(chatSse(meta()), evs);
    const choices = out.slice(0, -1).map((f) => (JSON.parse(f) as { choices: Record<string, unknown>[] }).choices[0]);
    expect(choices.map((c) => c.delta)).toEqual([
      { role: 'assistant', reasoning_content: null },
      { role: 'assistant', tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather' } }], reasoning_content: null },
      { role: 'assistant', tool_calls: [{ index: 0, function: { arguments: '{"city":' } }], reasoning_content: null },
      { role: 'assistant', tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }], reasoning_content: null },
      { reasoning_content: null },
    ]);
    expect(choices.at(-1)?.finish_reason).toBe('tool_calls');
    expect(out.at(-1)).toBe('[DONE]');
  });

  it('stream required: the constrained array streams as tool-call deltas (§10.4), finish tool_calls', () => {
    const evs = choiceEvents(plan({ kind: 'array' }, (_, i) => `call_${i}`), true, ['[{"name":"a","para', 'meters":{"x":1}},', '{"name":"b","parameters":{}}]'], 'stop');
    const out = ssePayloads(chatSse(meta()), evs);
    const deltas = out.slice(0, -1).map((f) => (JSON.parse(f) as { choices: { delta: Record<string, unknown> }[] }).choices[0].delta);
    expect(deltas.some((d) => 'content' in d)).toBe(false);
    const calls: Record<number, { id?: string; name?: string; args: string }> = {};
    for (const d of deltas) {
      for (const t of (d.tool_calls ?? []) as { index: number; id?: string; function: { name?: string; arguments?: string } }[]) {
        const c = (calls[t.index] ??= { args: '' });
        if (t.id) c.id = t.id;
        if (t.function.name) c.name = t.function.name;
        c.args += t.function.arguments ?? '';
      }
    }
    expect(calls).toEqual({ 0: { id: 'call_0', name: 'a', args: '{"x":1}' }, 1: { id: 'call_1', name: 'b', args: '{}' } });
    const finish = JSON.parse(out.at(-2)!) as { choices: { finish_reason: string }[] };
    expect(finish.choices[0].finish_reason).toBe('tool_calls');
  });
});
