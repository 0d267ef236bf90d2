/**
 * /v1/responses front-end without an engine: input items → template messages, the Responses-only
 * validation, the response object, and the event stream — replayed through the official openai
 * SDK's own ResponseStream accumulator, whose final response must equal the JSON answer.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { inputMessages } from '../../src/api/responses/input-items.js';
import { parseResponsesRequest } from '../../src/api/responses/request.js';
import { responseJson, responseSse } from '../../src/api/responses/respond.js';
import { collectChoices } from '../../src/pipeline/collect.js';
import type { ResponseMeta } from '../../src/api/responses/response-object.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import { endEvent, eventStream, parseSse } from '../support/events.js';

function rejection(fn: () => unknown): PipelineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    return err as PipelineError;
  }
  throw new Error('expected a rejection');
}

describe('Responses input → chat messages', () => {
  it('instructions become the system message; a string input one user message', () => {
    expect(inputMessages('Hi', 'Be brief.')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('message items, parallel function calls in one assistant turn, outputs as tool messages, reasoning on the next assistant turn', () => {
    const msgs = inputMessages(
      [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris' }, { type: 'input_text', text: 'and Rome?' }] },
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'Two cities.' }] },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '18C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '25C' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris 18C, Rome 25C.' }] },
      ],
      undefined,
    );
    expect(msgs).toEqual([
      { role: 'user', content: 'Weather in Paris\nand Rome?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Two cities.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C' },
      { role: 'tool', tool_call_id: 'call_b', content: '25C' },
      { role: 'assistant', content: 'Paris 18C, Rome 25C.' },
    ]);
  });

  it('refuses item types it cannot serve by name, images clearly, and an input without a message', () => {
    expect(rejection(() => inputMessages([{ type: 'mcp_call', id: 'x' }], undefined)).message).toBe("Unsupported input item type: 'mcp_call'");
    expect(rejection(() => inputMessages([{ type: 'item_reference', id: 'x' }], undefined)).message).toBe(
      "Unsupported input item type: 'item_reference'",
    );
    const img = rejection(() => inputMessages([{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x' }] }], undefined));
    expect(img.code).toBe('multimodal_not_supported');
    expect(img.message).toContain("'input_image'");
    expect(rejection(() => inputMessages([], 'only instructions')).message).toBe('Request must contain at least one message');
  });
});

describe('Responses request fields', () => {
  const base = { model: 'm', input: 'Hi' };

  it('maps onto the chat request SMG builds', () => {
    const { chat, echo } = parseResponsesRequest({
      ...base,
      max_output_tokens: 64,
      temperature: 0.5,
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: {} } }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' } } },
      reasoning: { effort: 'high' },
    });
    expect(chat.maxTokens).toBe(64);
    expect(chat.temperature).toBe(0.5);
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } }]);
    expect(chat.toolSelection).toEqual({ mode: 'function', name: 'f' });
    expect(chat.structured).toEqual({ kind: 'json_schema', schema: { type: 'object' } });
    expect(chat.reasoningEffort).toBe('high');
    expect(chat.skipSpecialTokens).toBe(true);
    expect(echo.tools).toEqual([{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: {} } }]);
  });

  it('background is refused; store, background and reasoning.effort are strictly typed', () => {
    const bg = rejection(() => parseResponsesRequest({ ...base, background: true }));
    expect(bg.status).toBe(400);
    expect(bg.message).toBe('background: true is not supported: responses run in the foreground only');
    // OpenAI types them as booleans: "yes" or 1 is never read as true.
    expect(rejection(() => parseResponsesRequest({ ...base, store: 'yes' })).message).toBe('store: must be a boolean');
    expect(rejection(() => parseResponsesRequest({ ...base, background: 1 })).message).toBe('background: must be a boolean');
    expect(rejection(() => parseResponsesRequest({ ...base, reasoning: { effort: 'extreme' } })).message).toBe(
      "reasoning.effort: must be one of none, minimal, low, medium, high, xhigh, max, got 'extreme'",
    );
    for (const ok of [{ store: false }, { store: true }, { background: false }, { reasoning: { effort: 'minimal' } }, { reasoning: { effort: null } }]) {
      expect(() => parseResponsesRequest({ ...base, ...ok })).not.toThrow();
    }
  });

  const FN_TOOL = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } };

  it('hosted tools are dropped (and named); unknown tool types are refused', () => {
    const req = parseResponsesRequest({
      ...base,
      tools: [{ type: 'web_search', external_web_access: false }, { type: 'code_interpreter', container: { type: 'auto' } }, FN_TOOL],
      tool_choice: 'auto',
    });
    expect(req.tools.dropped).toEqual(['web_search', 'code_interpreter']);
    expect(req.chat.tools?.map((t) => (t.function as { name: string }).name)).toEqual(['get_weather']);
    expect(req.echo.tools).toEqual([FN_TOOL]);
    // Only hosted tools: no tool is left, and tool_choice auto is no error.
    const only = parseResponsesRequest({ ...base, tools: [{ type: 'web_search' }], tool_choice: 'auto' });
    expect(only.chat.tools).toBeUndefined();
    expect(only.echo.toolChoice).toBe('auto');
    expect(rejection(() => parseResponsesRequest({ ...base, tools: [{ type: 'bogus_tool' }] })).message).toBe("tools[0].type: unsupported tool type 'bogus_tool'");
  });

  it('namespace tools are flattened to <namespace>__<name>; calls and history map back', () => {
    const req = parseResponsesRequest({
      ...base,
      tools: [{ type: 'namespace', name: 'agents', description: 'Sub-agents', tools: [{ ...FN_TOOL, name: 'spawn' }, { type: 'custom', name: 'note' }] }],
      tool_choice: { type: 'function', name: 'spawn', namespace: 'agents' },
      input: [
        { role: 'user', content: 'Go' },
        { type: 'function_call', call_id: 'call_1', name: 'spawn', namespace: 'agents', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
        { type: 'custom_tool_call', call_id: 'call_2', name: 'note', namespace: 'agents', input: 'free text' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: 'noted' },
      ],
    });
    expect(req.chat.tools?.map((t) => (t.function as { name: string }).name)).toEqual(['agents__spawn', 'agents__note']);
    expect(req.chat.toolSelection).toEqual({ mode: 'function', name: 'agents__spawn' });
    const calls = req.chat.messages.filter((m) => m.tool_calls).map((m) => (m.tool_calls as { function: unknown }[])[0].function);
    expect(calls).toEqual([
      { name: 'agents__spawn', arguments: '{}' },
      { name: 'agents__note', arguments: '{"input":"free text"}' },
    ]);
    expect(req.tools.origins.origin('agents__spawn')).toEqual({ name: 'spawn', namespace: 'agents', custom: false });
    expect(req.tools.origins.origin('agents__note')).toEqual({ name: 'note', namespace: 'agents', custom: true });
    expect(req.tools.origins.origin('other')).toEqual({ name: 'other', custom: false });
  });
});

const collectResponse = async (evs: AsyncIterable<GenEvent>, m: ResponseMeta) => responseJson(await collectChoices(evs, 1, 1), m);

const meta = (body: Record<string, unknown> = {}): ResponseMeta => {
  const req = parseResponsesRequest({ model: 'm', input: 'x', ...body });
  return {
    responseId: 'resp_1',
    chatId: 'chat-1',
    created: 1700000000,
    model: 'm',
    echo: req.echo,
    origins: req.tools.origins,
    // One token per character: reasoning_tokens is then the reasoning text's length.
    countTokens: (text) => text.length,
  };
};

/** The official client's `responses.stream()`, answered by our encoder's bytes through a fake fetch. */
function sdkStream(events: GenEvent[], failure?: Error, m: ResponseMeta = meta()) {
  const enc = responseSse(m);
  let text = '';
  for (const ev of events) text += enc.event(ev);
  text += failure ? enc.error(failure) : enc.end();
  const client = new OpenAI({
    apiKey: 'x',
    baseURL: 'http://gateway.invalid/v1',
    maxRetries: 0,
    fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
  });
  return client.responses.stream({ model: 'm', input: 'x' });
}

const reasoningThenCall: GenEvent[] = [
  { kind: 'reasoning', index: 0, text: 'I should ' },
  { kind: 'reasoning', index: 0, text: 'call it.' },
  { kind: 'text', index: 0, text: '\n\n', logprobs: null },
  { kind: 'tool_start', index: 0, tool: 0, id: 'call_abc', name: 'get_weather' },
  { kind: 'tool_args', index: 0, tool: 0, text: '{"city":' },
  { kind: 'tool_args', index: 0, tool: 0, text: '"Paris"}' },
  endEvent(0, 'tool_calls', { promptTokens: 20, completionTokens: 12 }),
];

describe('Responses output', () => {
  it('JSON: reasoning item, no whitespace-only message, a function_call item; SMG statuses', async () => {
    const body = await collectResponse(eventStream(reasoningThenCall), meta());
    expect(body.status).toBe('in_progress');
    expect(body.output).toEqual([
      { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'I should call it.' }] },
      { id: 'fc_abc', type: 'function_call', status: 'in_progress', call_id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(body.usage).toEqual({
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 12,
      // 'I should call it.' is 17 characters (countTokens above), capped at the 12 output tokens.
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 32,
    });
  });

  it('reasoning.summary asked: the reasoning is the summary, streamed as reasoning_summary_* events', async () => {
    const m = meta({ reasoning: { summary: 'auto' } });
    const body = await collectResponse(eventStream(reasoningThenCall), m);
    expect((body.output as unknown[])[0]).toEqual({ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'I should call it.' }], content: [] });
    expect(body.reasoning).toEqual({ effort: null, summary: 'auto' });
    const enc = responseSse(m);
    const frames = parseSse(reasoningThenCall.map((e) => enc.event(e)).join('') + enc.end());
    expect(frames.map((f) => f.event).slice(2, 9)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const delta = JSON.parse(frames[4].data) as Record<string, unknown>;
    expect(delta).toMatchObject({ item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'I should ' });
    // The official SDK's accumulator builds the same response the JSON answer is.
    const final = await sdkStream(reasoningThenCall, undefined, m).finalResponse();
    expect((final.output[0] as { summary: unknown }).summary).toEqual([{ type: 'summary_text', text: 'I should call it.' }]);
    expect(() => parseResponsesRequest({ model: 'm', input: 'x', reasoning: { summary: 'long' } })).toThrow('reasoning.summary: must be one of auto, concise, detailed');
  });

  it('calls of namespace members and custom tools go out in the client\'s terms', async () => {
    const m = meta({
      tools: [{ type: 'namespace', name: 'agents', description: 'd', tools: [{ type: 'function', name: 'spawn' }] }, { type: 'custom', name: 'apply_patch' }],
    });
    const events: GenEvent[] = [
      { kind: 'tool_start', index: 0, tool: 0, id: 'call_a', name: 'agents__spawn' },
      { kind: 'tool_args', index: 0, tool: 0, text: '{}' },
      { kind: 'tool_start', index: 0, tool: 1, id: 'call_b', name: 'apply_patch' },
      { kind: 'tool_args', index: 0, tool: 1, text: '{"input": "*** Begin' },
      { kind: 'tool_args', index: 0, tool: 1, text: ' Patch"}' },
      endEvent(0, 'tool_calls', { promptTokens: 5, completionTokens: 9 }),
    ];
    const body = await collectResponse(eventStream(events), m);
    expect(body.output).toEqual([
      { id: 'fc_a', type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'spawn', namespace: 'agents', arguments: '{}' },
      { id: 'fc_b', type: 'custom_tool_call', status: 'in_progress', call_id: 'call_b', name: 'apply_patch', input: '*** Begin Patch' },
    ]);
    const enc = responseSse(m);
    const frames = parseSse(events.map((e) => enc.event(e)).join('') + enc.end());
    expect(frames.filter((f) => f.event?.startsWith('response.custom_tool_call_input')).map((f) => JSON.parse(f.data) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ type: 'response.custom_tool_call_input.delta', item_id: 'fc_b', delta: '*** Begin Patch' }),
      expect.objectContaining({ type: 'response.custom_tool_call_input.done', item_id: 'fc_b', input: '*** Begin Patch' }),
    ]);
    const final = await sdkStream(events, undefined, m).finalResponse();
    expect(final.output.map((o) => [o.type, (o as { name: string }).name])).toEqual([
      ['function_call', 'spawn'],
      ['custom_tool_call', 'apply_patch'],
    ]);
  });

  it('stream: the event sequence, with increasing sequence numbers', () => {
    const enc = responseSse(meta());
    const frames = parseSse(reasoningThenCall.map((e) => enc.event(e)).join('') + enc.end());
    expect(frames.map((f) => f.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const seqs = frames.map((f) => (JSON.parse(f.data) as { sequence_number: number }).sequence_number);
    expect(seqs).toEqual(seqs.map((_, i) => i));
  });

  it('the SDK accumulates the stream into the same response the JSON answer gives', async () => {
    const text: GenEvent[] = [
      { kind: 'text', index: 0, text: 'Hello', logprobs: null },
      { kind: 'text', index: 0, text: ' there!', logprobs: null },
      endEvent(0, 'stop'),
    ];
    for (const events of [text, reasoningThenCall]) {
      const final = await sdkStream(events).finalResponse();
      const json = await collectResponse(eventStream(events), meta());
      // The SDK adds its own parse results (`parsed`, `parsed_arguments`, `output_parsed`, `output_text`); the rest must match.
      const sdkOnly = new Set(['parsed', 'parsed_arguments', 'output_parsed', 'output_text']);
      const plain = JSON.parse(JSON.stringify(final, (k, v: unknown) => (sdkOnly.has(k) ? undefined : v))) as unknown;
      expect(plain).toEqual(json);
      expect(final.output_text).toBe(events === text ? 'Hello there!' : '');
    }
  });

  it('a failure mid-stream is an error event the SDK raises', async () => {
    const stream = sdkStream([{ kind: 'text', index: 0, text: 'Hi', logprobs: null }], new Error('engine core reported fatal failure'));
    await expect(stream.finalResponse()).rejects.toThrow(/Stream error: engine core reported fatal failure/);
  });
});
