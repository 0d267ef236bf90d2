/**
 * gpt-oss over ZMQ (request-pipeline §11.6): the gateway renders Harmony prompts (no chat template
 * exists for this tokenizer) and reads the output by channel. The mock engine answers in Harmony
 * (`--mock-replies`, triggered by what the rendered prompt contains), with the real gpt-oss
 * tokenizer, through the official openai and @anthropic-ai/sdk clients, on both engines.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRig, BACKENDS, startAnyRig } from './support/any-rig.js';
import { gptOssModel } from './support/models.js';

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

// The output starts right after the prompt's trailing `<|start|>assistant`; the mock appends EOS (<|return|>).
const ANSWER = '<|channel|>analysis<|message|>The user asks for the capital of France.<|end|><|start|>assistant<|channel|>final<|message|>The capital of France is Paris.';
const CALL = '<|channel|>analysis<|message|>I need the weather tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>';
const AFTER_TOOL = '<|channel|>final<|message|>It is 18 degrees in Paris.';
const HIGH = '<|channel|>final<|message|>Thinking hard, as asked.';

type Message = OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string | null };

describe.each(BACKENDS)('gpt-oss / Harmony over %s (e2e)', (backend) => {
  let rig: AnyRig;
  let anthropic: Anthropic;
  beforeAll(async () => {
    rig = await startAnyRig(backend, {
      modelDir: gptOssModel,
      replies: [
        { when: 'Reasoning: high', reply: HIGH },
        { when: '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>18C<|end|>', reply: AFTER_TOOL },
        { when: 'weather in Paris', reply: CALL },
        { when: 'capital of France', reply: ANSWER },
      ],
    });
    anthropic = new Anthropic({ baseURL: rig.gatewayURL, apiKey: 'unused', maxRetries: 0, timeout: 30_000 });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('a plain answer: analysis → reasoning_content, final → content', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
    const msg = r.choices[0].message as Message;
    expect(msg.reasoning_content).toBe('The user asks for the capital of France.');
    expect(msg.content).toBe('The capital of France is Paris.');
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('streaming gives the same reasoning and content', async () => {
    const stream = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
      stream: true,
    });
    let content = '';
    let reasoning = '';
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string | null } | undefined;
      content += d?.content ?? '';
      reasoning += d?.reasoning_content ?? '';
    }
    expect(reasoning).toBe('The user asks for the capital of France.');
    expect(content).toBe('The capital of France is Paris.');
  });

  it('a stop string ends the answer on the final channel and stays as its suffix (not in the reasoning)', async () => {
    // "France" is in the analysis text too; only the final channel is matched (§11.6).
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'What is the capital of France?' }], stop: ['France'] });
    const msg = r.choices[0].message as Message;
    expect(msg.reasoning_content).toBe('The user asks for the capital of France.');
    expect(msg.content).toBe('The capital of France');
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('a call on commentary to=functions.NAME is a tool call with JSON arguments, finish tool_calls', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: "What's the weather in Paris?" }], tools: [WEATHER] });
    const msg = r.choices[0].message as Message;
    expect(msg.reasoning_content).toBe('I need the weather tool.');
    const call = msg.tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
  });

  it('a tool-result round trip renders the result as a functions.NAME message on commentary', async () => {
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      tools: [WEATHER],
      messages: [
        { role: 'user', content: "What's the weather in Paris?" },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
      ],
    });
    expect(r.choices[0].message.content).toBe('It is 18 degrees in Paris.');
  });

  it('reasoning_effort high reaches the system message', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'Anything' }], reasoning_effort: 'high' });
    expect(r.choices[0].message.content).toBe('Thinking hard, as asked.');
  });

  it('ignore_eos is a 400', async () => {
    const err = await rig.openai.chat.completions
      .create({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], ignore_eos: true } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('ignore_eos is not supported for Harmony');
  });

  it('structured output and a forced tool choice are 400s that name the field (a grammar would forbid the channel tokens)', async () => {
    const refused = (body: Record<string, unknown>) =>
      rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], ...body } as never).then(
        () => null,
        (e: unknown) => e as InstanceType<typeof OpenAI.BadRequestError>,
      );
    for (const [body, param] of [
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ tools: [WEATHER], tool_choice: 'required' }, 'tool_choice'],
    ] as const) {
      const err = await refused(body);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err?.message).toContain('structured outputs and forced tool choices are not supported for Harmony (gpt-oss) models');
      expect(err?.param).toBe(param);
    }
  });

  it('Responses: analysis becomes a reasoning item, final the message', async () => {
    const r = await rig.openai.responses.create({ model: rig.model, input: 'What is the capital of France?' });
    expect(r.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(r.output_text).toBe('The capital of France is Paris.');
    const reasoning = r.output[0] as { content?: { text: string }[] };
    expect(reasoning.content?.[0].text).toBe('The user asks for the capital of France.');
  });

  it('Messages: analysis becomes a thinking block, final a text block, stop_reason end_turn', async () => {
    const msg = await anthropic.messages.create({
      model: rig.model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const [thinking, text] = msg.content as [Anthropic.ThinkingBlock, Anthropic.TextBlock];
    expect(thinking.thinking).toBe('The user asks for the capital of France.');
    expect(text.text).toBe('The capital of France is Paris.');
    expect(msg.stop_reason).toBe('end_turn');
  });

  it('Messages streaming: finalMessage() rebuilds the same blocks from thinking and text deltas', async () => {
    const stream = anthropic.messages.stream({
      model: rig.model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    const deltas = new Set<string>();
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta') deltas.add(ev.delta.type);
    });
    const msg = await stream.finalMessage();
    // The thinking block closes with its signature (signature_delta), as Anthropic streams it.
    expect([...deltas].sort()).toEqual(['signature_delta', 'text_delta', 'thinking_delta']);
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect((msg.content[0] as Anthropic.ThinkingBlock).signature).toMatch(/^smg1\./);
    expect((msg.content[1] as Anthropic.TextBlock).text).toBe('The capital of France is Paris.');
    expect(msg.stop_reason).toBe('end_turn');
  });

  it('Messages: a Harmony tool call is a tool_use block with its input as an object, and a tool_result round trip answers', async () => {
    const tools: Anthropic.Tool[] = [
      { name: 'get_weather', description: 'Current weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    ];
    const call = await anthropic.messages.create({
      model: rig.model,
      max_tokens: 256,
      tools,
      messages: [{ role: 'user', content: "What's the weather in Paris?" }],
    });
    expect(call.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    const use = call.content[1] as Anthropic.ToolUseBlock;
    expect(use.name).toBe('get_weather');
    expect(use.input).toEqual({ city: 'Paris' });
    expect(use.id).toMatch(/^toolu_/);
    expect(call.stop_reason).toBe('tool_use');

    const answer = await anthropic.messages.create({
      model: rig.model,
      max_tokens: 256,
      tools,
      messages: [
        { role: 'user', content: "What's the weather in Paris?" },
        { role: 'assistant', content: [{ type: 'tool_use', id: use.id, name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
      ],
    });
    expect(answer.content.filter((b) => b.type === 'text').map((b) => (b as Anthropic.TextBlock).text)).toEqual(['It is 18 degrees in Paris.']);
    expect(answer.stop_reason).toBe('end_turn');
  });
});
