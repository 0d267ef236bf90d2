/**
 * Anthropic Messages and OpenAI Responses over the parsers: the simulated Qwen3 answers with a
 * `<think>` block and a Hermes `<tool_call>` (`--mock-replies`), and the official clients see
 * thinking / tool_use blocks (`messages.stream().finalMessage()` with `input_json_delta`s) and
 * reasoning / function_call items (`responses.stream()`), on both engines.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRig, BACKENDS, startAnyRig } from './support/any-rig.js';
import { thinkingSignature } from '../../src/api/anthropic/thinking-signature.js';
import { qwen3Model } from './support/models.js';

const THINK_CALL =
  '<think>\nI should call the weather tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>';
const THINK_ANSWER = '<think>\nA greeting.\n</think>\n\nHello there!';
const AFTER_TOOL = '<think>\nThe tool answered.\n</think>\n\nIt is 18 degrees in Paris.';

const WEATHER_SCHEMA = {
  type: 'object' as const,
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
};

describe.each(BACKENDS)('Messages and Responses with parsed output over %s (e2e)', (backend) => {
  let rig: AnyRig;
  let anthropic: Anthropic;
  beforeAll(async () => {
    rig = await startAnyRig(backend, {
      modelDir: qwen3Model,
      replies: [
        { when: '<tool_response>\n18C\n</tool_response>', reply: AFTER_TOOL },
        { when: 'weather in Paris', reply: THINK_CALL },
        { when: 'Say hello', reply: THINK_ANSWER },
      ],
    });
    anthropic = new Anthropic({ baseURL: rig.gatewayURL, apiKey: 'unused', maxRetries: 0, timeout: 15_000 });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('messages.create: thinking → tool_use blocks, stop_reason tool_use, toolu_ ids, input as an object', async () => {
    const msg = await anthropic.messages.create({
      model: rig.model,
      max_tokens: 256,
      thinking: { type: 'enabled', budget_tokens: 128 },
      tools: [{ name: 'get_weather', description: 'Current weather', input_schema: WEATHER_SCHEMA }],
      messages: [{ role: 'user', content: "What's the weather in Paris?" }],
    });
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    const [thinking, tool] = msg.content as [Anthropic.ThinkingBlock, Anthropic.ToolUseBlock];
    expect(thinking.thinking).toBe('\nI should call the weather tool.\n');
    expect(tool.id).toMatch(/^toolu_/);
    expect(tool.name).toBe('get_weather');
    expect(tool.input).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(msg.stop_reason).toBe('tool_use');
  });

  it('messages.stream().finalMessage() rebuilds the same blocks from thinking_delta and input_json_delta events', async () => {
    const stream = anthropic.messages.stream({
      model: rig.model,
      max_tokens: 256,
      tools: [{ name: 'get_weather', description: 'Current weather', input_schema: WEATHER_SCHEMA }],
      messages: [{ role: 'user', content: "What's the weather in Paris?" }],
    });
    const deltas: string[] = [];
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta') deltas.push(ev.delta.type);
    });
    const msg = await stream.finalMessage();
    expect(deltas).toContain('thinking_delta');
    expect(deltas).toContain('input_json_delta');
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect((msg.content[1] as Anthropic.ToolUseBlock).input).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(msg.stop_reason).toBe('tool_use');
  });

  it('a tool_result round trip, and a plain answer after thinking', async () => {
    const msg = await anthropic.messages.create({
      model: rig.model,
      max_tokens: 256,
      tools: [{ name: 'get_weather', description: 'Current weather', input_schema: WEATHER_SCHEMA }],
      messages: [
        { role: 'user', content: "What's the weather in Paris?" },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' }] },
      ],
    });
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: '\nThe tool answered.\n', signature: thinkingSignature('\nThe tool answered.\n') },
      { type: 'text', text: '\n\nIt is 18 degrees in Paris.' },
    ]);
    expect(msg.stop_reason).toBe('end_turn');
    const hello = await anthropic.messages.create({ model: rig.model, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(hello.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect((hello.content[1] as Anthropic.TextBlock).text).toBe('\n\nHello there!');
  });

  it('responses.stream(): a reasoning item and a function_call item with its arguments', async () => {
    const stream = rig.openai.responses.stream({
      model: rig.model,
      input: "What's the weather in Paris?",
      tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA, strict: false }],
    });
    const final = await stream.finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'function_call']);
    const call = final.output[1] as { name: string; arguments: string; call_id: string };
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(call.call_id).toMatch(/^call_/);
    const plain = await rig.openai.responses.create({ model: rig.model, input: 'Say hello' });
    expect(plain.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(plain.output_text).toBe('\n\nHello there!');
  });
});
