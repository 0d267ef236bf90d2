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

  it('hosted tools are refused', () => {
    expect(rejection(() => parseResponsesRequest({ ...base, tools: [{ type: 'web_search' }] })).message).toBe(
      "tools[0].type: only function tools are supported, got 'web_search'",
    );
  });
});

const collectResponse = async (evs: AsyncIterable<GenEvent>, m: ResponseMeta) => responseJson(await collectChoices(evs, 1, 1), m);

const meta = (): ResponseMeta => ({
  responseId: 'resp_1',
  chatId: 'chat-1',
  created: 1700000000,
  model: 'm',
  echo: parseResponsesRequest({ model: 'm', input: 'x' }).echo,
});

/** The official client's `responses.stream()`, answered by our encoder's bytes through a fake fetch. */
function sdkStream(events: GenEvent[], failure?: Error) {
  const enc = responseSse(meta());
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
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 32,
    });
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
