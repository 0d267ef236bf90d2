/**
 * /v1/messages and /v1/messages/count_tokens end to end: the official `@anthropic-ai/sdk` client
 * → `smg launch --api-key …` → ZeroMQ → `smg mock-engine` (vLLM and TokenSpeed) with the Qwen3
 * tokenizer. Expected prompts are rendered here straight from Qwen3's own chat template with
 * @huggingface/jinja and counted with the reference tokenizer (support/qwen.ts), so the gateway's
 * conversion and templating are checked against an independent rendering.
 *
 * Thinking blocks and free-form tool calls read from the model's own output syntax are covered in
 * anthropic-parsed.test.ts; the forced tool call (JSON-schema path) is covered here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Template } from '@huggingface/jinja';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/proc.js';
import { MOCK_TEXT, QWEN3_DIR, decode, encode } from './support/qwen.js';
import { startRig, uniqueRid } from './support/rig.js';
import { TS_TEXT, startTsRig } from './support/tokenspeed-rig.js';

const KEY = 'anthropic-e2e-key';

interface Served {
  model: string;
  gatewayURL: string;
  engine: { lines: string[] };
  stop(): Promise<void>;
}

interface Backend {
  name: 'vllm' | 'tokenspeed';
  /** The mock's scripted answer and a word inside it to stop at. */
  script: string;
  stopWord: string;
  start(): Promise<Served>;
}

const BACKENDS: Backend[] = [
  { name: 'vllm', script: MOCK_TEXT, stopWord: 'scripted', start: () => startRig({ gatewayArgs: ['--api-key', KEY] }) },
  { name: 'tokenspeed', script: TS_TEXT, stopWord: 'All', start: () => startTsRig({ gatewayArgs: ['--api-key', KEY] }) },
];

// ---- An independent rendering of what the gateway must send -------------------------------------

const QWEN3_TEMPLATE = new Template(
  (JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer_config.json'), 'utf8')) as { chat_template: string }).chat_template,
);

/** Qwen3's prompt for chat messages (string contents, object arguments, as templates expect). */
function qwenPromptTokens(messages: Record<string, unknown>[], tools?: Record<string, unknown>[]): number {
  const context: Record<string, unknown> = { messages, add_generation_prompt: true };
  if (tools) context.tools = tools;
  return encode(QWEN3_TEMPLATE.render(context)).length;
}

const WEATHER_SCHEMA = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER_TOOL: Anthropic.Tool = { name: 'get_weather', description: 'Current weather for a city', input_schema: WEATHER_SCHEMA };
const WEATHER_CHAT = { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_SCHEMA } };
const TIME_TOOL: Anthropic.Tool = { name: 'get_time', description: 'Local time in a timezone', input_schema: { type: 'object', properties: {} } };

/** A tool-use round trip as a client sends it back, and the chat messages it must become. */
const ROUND_TRIP: Anthropic.MessageCreateParamsNonStreaming = {
  model: '',
  max_tokens: 64,
  system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
  tools: [WEATHER_TOOL],
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'Sunny, 21C' }] },
        { type: 'text', text: 'Thanks! Summarize.' },
      ],
    },
  ],
};
const ROUND_TRIP_CHAT = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
  { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny, 21C' },
  { role: 'user', content: 'Thanks! Summarize.' },
];

// ---- Helpers --------------------------------------------------------------------------------------

/** The mock's prompt length for the request whose rid starts with `rid` (both mocks log it). */
async function enginePrompt(served: Served, rid: string): Promise<number> {
  const line = await waitFor(`engine line for ${rid}`, () => served.engine.lines.find((l) => l.includes(`request added: ${rid}`)), 30_000, {
    detail: () => served.engine.lines.slice(-10).join('\n'),
  });
  return Number((/ prompt=(\d+)/.exec(line) ?? /"prompt":(\d+)/.exec(line))?.[1]);
}

async function failure(p: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Anthropic.APIError);
  return err as InstanceType<typeof Anthropic.APIError>;
}

const user = (content: string): Anthropic.MessageParam[] => [{ role: 'user', content }];

/** Anthropic clients send their key as `x-api-key`; this SDK version would send Bearer, so it is set by hand. */
function xApiKeyClient(served: Served): Anthropic {
  return new Anthropic({ apiKey: null, authToken: null, defaultHeaders: { 'x-api-key': KEY }, baseURL: served.gatewayURL, maxRetries: 0, timeout: 60_000 });
}

// ---- Per backend ------------------------------------------------------------------------------------

describe.each(BACKENDS)('Messages over $name', (backend) => {
  let served: Served;
  let client: Anthropic;
  const SCRIPT = encode(backend.script);
  beforeAll(async () => {
    served = await backend.start();
    client = xApiKeyClient(served);
  });
  afterAll(async () => {
    await served?.stop();
  });

  it('messages.create: one text block, end_turn, usage = templated prompt + script + EOS', async () => {
    const r = await client.messages.create({ model: served.model, max_tokens: 200, messages: user('Hi') });
    expect(r.id).toMatch(/^msg_[A-Za-z0-9]{24}-[0-9a-f-]{36}$/);
    expect(r.type).toBe('message');
    expect(r.role).toBe('assistant');
    expect(r.model).toBe(served.model);
    expect(r.content).toEqual([{ type: 'text', text: backend.script }]);
    expect(r.stop_reason).toBe('end_turn');
    expect(r.stop_sequence).toBeNull();
    expect(r.usage).toEqual({
      input_tokens: qwenPromptTokens([{ role: 'user', content: 'Hi' }]),
      output_tokens: SCRIPT.length + 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('messages.stream().finalMessage() rebuilds the same message; the events come in protocol order', async () => {
    const body = { model: served.model, max_tokens: 200, messages: user('Hi') };
    const stream = client.messages.stream(body);
    const types: string[] = [];
    let streamedText = '';
    stream.on('streamEvent', (ev) => types.push(ev.type));
    stream.on('text', (t) => (streamedText += t));
    const final = await stream.finalMessage();
    const plain = await client.messages.create(body);
    expect(final.content).toEqual(plain.content);
    expect(streamedText).toBe(backend.script);
    expect([final.stop_reason, final.stop_sequence]).toEqual(['end_turn', null]);
    expect(final.usage).toEqual(plain.usage);
    expect(types[0]).toBe('message_start');
    expect(types.slice(1, 2)).toEqual(['content_block_start']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(new Set(types.slice(2, -3))).toEqual(new Set(['content_block_delta']));
  });

  it('the raw stream: event lines, no [DONE], SSE content type', async () => {
    const res = await fetch(`${served.gatewayURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'fine-grained-tool-streaming-2025-05-14' },
      body: JSON.stringify({ model: served.model, max_tokens: 200, stream: true, messages: user('Hi') }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const raw = await res.text();
    expect(raw).not.toContain('[DONE]');
    expect(raw.startsWith('event: message_start\ndata: {"type":"message_start"')).toBe(true);
    expect(raw.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('a tool_result round trip is accepted and templated as the equivalent chat conversation', async () => {
    const rid = uniqueRid('ant-tools');
    const expected = qwenPromptTokens(ROUND_TRIP_CHAT, [WEATHER_CHAT]);
    const r = await client.messages.create({ ...ROUND_TRIP, model: served.model, rid } as Anthropic.MessageCreateParamsNonStreaming);
    expect(r.usage.input_tokens).toBe(expected);
    expect(await enginePrompt(served, rid)).toBe(expected);
    // Tools present with tool_choice auto: the scripted reply has no tool-call markup, so it comes back as text
    // (anthropic-parsed.test.ts covers a reply with a call in it).
    expect(r.content).toEqual([{ type: 'text', text: backend.script }]);
    expect(r.stop_reason).toBe('end_turn');
  });

  it('stop_sequences: the text before the match, stop_reason stop_sequence, the matched string (JSON and stream)', async () => {
    const before = backend.script.slice(0, backend.script.indexOf(backend.stopWord));
    const body = { model: served.model, max_tokens: 200, stop_sequences: ['never-there', backend.stopWord], messages: user('Hi') };
    const r = await client.messages.create(body);
    expect(r.content).toEqual([{ type: 'text', text: before }]);
    expect([r.stop_reason, r.stop_sequence]).toEqual(['stop_sequence', backend.stopWord]);
    const s = await client.messages.stream(body).finalMessage();
    expect(s.content).toEqual(r.content);
    expect([s.stop_reason, s.stop_sequence]).toEqual(['stop_sequence', backend.stopWord]);
  });

  it('max_tokens: cut at the limit, stop_reason max_tokens', async () => {
    const r = await client.messages.create({ model: served.model, max_tokens: 3, messages: user('Hi') });
    expect(r.content).toEqual([{ type: 'text', text: decode(SCRIPT.slice(0, 3)) }]);
    expect(r.stop_reason).toBe('max_tokens');
    expect(r.usage.output_tokens).toBe(3);
    const s = await client.messages.stream({ model: served.model, max_tokens: 3, messages: user('Hi') }).finalMessage();
    expect([s.stop_reason, s.usage.output_tokens]).toEqual(['max_tokens', 3]);
  });

  it("a 400 in Anthropic's shape: the SDK raises BadRequestError with the message", async () => {
    const err = await failure(client.messages.create({ model: served.model, max_tokens: 16, tool_choice: { type: 'any' }, messages: user('Hi') }));
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.apiMessage).toBe("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
    const noMax = await failure(client.messages.create({ model: served.model, messages: user('Hi') } as Anthropic.MessageCreateParamsNonStreaming));
    expect(noMax.apiMessage).toBe('max_tokens: field is required');
    const streamed = await failure(client.messages.stream({ model: served.model, max_tokens: 0, messages: user('Hi') }).finalMessage());
    expect(streamed).toBeInstanceOf(Anthropic.BadRequestError);
    expect(streamed.apiMessage).toBe('max_tokens must be greater than 0');
  });

  it('an unknown model is a NotFoundError (not_found_error)', async () => {
    const err = await failure(client.messages.create({ model: 'no-such-model', max_tokens: 16, messages: user('Hi') }));
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect(err.type).toBe('not_found_error');
    expect(err.apiMessage).toBe("No worker available for model 'no-such-model'");
  });

  it('messages.countTokens equals the templated prompt (system and tools included) and the input_tokens of a real request', async () => {
    const before = served.engine.lines.length;
    const counted = await client.messages.countTokens({ model: served.model, system: ROUND_TRIP.system, tools: ROUND_TRIP.tools, messages: ROUND_TRIP.messages });
    expect(counted).toEqual({ input_tokens: qwenPromptTokens(ROUND_TRIP_CHAT, [WEATHER_CHAT]) });
    // No engine was asked.
    expect(served.engine.lines.slice(before).filter((l) => l.includes('request added'))).toEqual([]);
    const plain = await client.messages.countTokens({ model: served.model, messages: user('Hi') });
    expect(plain.input_tokens).toBe((await client.messages.create({ model: served.model, max_tokens: 8, messages: user('Hi') })).usage.input_tokens);
  });

  it('--api-key: x-api-key or Bearer authenticate; a wrong key is an AuthenticationError', async () => {
    const bearer = new Anthropic({ apiKey: KEY, baseURL: served.gatewayURL, maxRetries: 0, timeout: 60_000 });
    expect((await bearer.messages.countTokens({ model: served.model, messages: user('Hi') })).input_tokens).toBeGreaterThan(0);
    const wrong = new Anthropic({ apiKey: null, authToken: null, defaultHeaders: { 'x-api-key': 'nope' }, baseURL: served.gatewayURL, maxRetries: 0 });
    const err = await failure(wrong.messages.create({ model: served.model, max_tokens: 8, messages: user('Hi') }));
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err.type).toBe('authentication_error');
  });
});

// ---- A forced tool call (tool_choice: tool), constrained by the tool's JSON schema ------------------

describe('Messages: forced tool call over vllm', () => {
  const ARGS = '{"city": "Paris"}';
  let served: Served;
  let client: Anthropic;
  beforeAll(async () => {
    served = await startRig({ gatewayArgs: ['--api-key', KEY], engineArgs: ['--mock-text', ARGS] });
    client = xApiKeyClient(served);
  });
  afterAll(async () => {
    await served?.stop();
  });

  const body = {
    max_tokens: 64,
    tools: [WEATHER_TOOL, TIME_TOOL],
    tool_choice: { type: 'tool' as const, name: 'get_weather' },
    messages: user('Weather in Paris?'),
  };

  it('non-stream: one tool_use block (toolu_ id, parsed input), stop_reason tool_use, only that tool templated', async () => {
    const rid = uniqueRid('ant-forced');
    const r = await client.messages.create({ ...body, model: served.model, rid } as Anthropic.MessageCreateParamsNonStreaming);
    expect(r.content).toHaveLength(1);
    const [block] = r.content as Anthropic.ToolUseBlock[];
    expect(block.type).toBe('tool_use');
    expect(block.id).toMatch(/^toolu_[0-9a-f]{24}$/);
    expect(block.name).toBe('get_weather');
    expect(block.input).toEqual({ city: 'Paris' });
    expect(r.stop_reason).toBe('tool_use');
    const expected = qwenPromptTokens([{ role: 'user', content: 'Weather in Paris?' }], [WEATHER_CHAT]);
    expect(await enginePrompt(served, rid)).toBe(expected);
  });

  it('stream: the SDK accumulates the input_json_deltas into the same input', async () => {
    const final = await client.messages.stream({ ...body, model: served.model }).finalMessage();
    expect(final.content).toHaveLength(1);
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    expect(final.stop_reason).toBe('tool_use');
  });
});
