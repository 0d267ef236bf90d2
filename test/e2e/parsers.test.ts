/**
 * Reasoning and tool-call parsing end to end (request-pipeline §11): the official openai client
 * (non-stream, `stream: true`, and the SDK's `chat.completions.stream()` helper) → `smg launch` →
 * a mock engine that answers in the model family's own output syntax (`--mock-replies`) with real
 * tokenizers and templates: Qwen3 on both engines (`<think>` + Hermes `<tool_call>`), DeepSeek-V3
 * (its tool tokens) and Llama 3.1 (`<|python_tag|>` JSON, `--tool-call-parser llama`).
 */
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRig, BACKENDS, startAnyRig } from './support/any-rig.js';
import { deepseekV3Model, llama31Model, qwen3Model } from './support/models.js';

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** The folded view of a streamed choice: what a client accumulates. */
interface Folded {
  content: string;
  reasoning: string;
  calls: Array<{ id?: string; name?: string; arguments: string }>;
  finish: string | null;
}

async function fold(stream: AsyncIterable<ChatCompletionChunk>): Promise<Folded> {
  const out: Folded = { content: '', reasoning: '', calls: [], finish: null };
  for await (const chunk of stream) {
    for (const c of chunk.choices) {
      const d = c.delta as typeof c.delta & { reasoning_content?: string | null };
      out.content += d.content ?? '';
      out.reasoning += d.reasoning_content ?? '';
      for (const t of d.tool_calls ?? []) {
        const call = (out.calls[t.index] ??= { arguments: '' });
        if (t.id) call.id = t.id;
        if (t.function?.name) call.name = t.function.name;
        call.arguments += t.function?.arguments ?? '';
      }
      if (c.finish_reason) out.finish = c.finish_reason;
    }
  }
  return out;
}

type Message = OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string | null };

const QWEN_THINK_CALL =
  '<think>\nI should call the weather tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const QWEN_THINK_ANSWER = '<think>\nThe user greets me.\n</think>\n\nHello there! How can I help?';
/** What a required tool choice makes the model write under its JSON-schema constraint (§10.2). */
const FORCED_ARRAY = '[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "get_weather", "parameters": {"city": "Rome"}}]';

describe.each(BACKENDS)('Qwen3 reasoning and tool calls over %s (e2e)', (backend) => {
  let rig: AnyRig;
  beforeAll(async () => {
    rig = await startAnyRig(backend, {
      modelDir: qwen3Model,
      // TokenSpeed applies grammars only with xgrammar (smg serve passes it by default).
      engineArgs: backend === 'tokenspeed' ? ['--grammar-backend', 'xgrammar'] : [],
      replies: [
        { when: 'weather in Paris and Rome', reply: FORCED_ARRAY },
        { when: 'weather in Paris', reply: QWEN_THINK_CALL },
        { when: 'Say hello', reply: QWEN_THINK_ANSWER },
      ],
    });
  });
  afterAll(async () => {
    await rig?.stop();
  });
  const ask = (content: string) => [{ role: 'user' as const, content }];

  it('non-stream: reasoning_content, tool_calls with JSON arguments, finish tool_calls, no content', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: ask("What's the weather in Paris?"), tools: [WEATHER] });
    const [choice] = r.choices;
    const msg = choice.message as Message;
    expect(msg.reasoning_content).toBe('\nI should call the weather tool.\n');
    expect(msg.content ?? null).toBeNull();
    expect(msg.tool_calls).toHaveLength(1);
    const call = msg.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(choice.finish_reason).toBe('tool_calls');
  });

  it('stream: the same reasoning and call arrive as deltas', async () => {
    const stream = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: ask("What's the weather in Paris?"),
      tools: [WEATHER],
      stream: true,
    });
    const f = await fold(stream);
    expect(f.reasoning).toBe('\nI should call the weather tool.\n');
    expect(f.content.trim()).toBe('');
    expect(f.calls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(f.finish).toBe('tool_calls');
  });

  it("the SDK's chat.completions.stream() helper accumulates the tool call", async () => {
    const runner = rig.openai.chat.completions.stream({ model: rig.model, messages: ask("What's the weather in Paris?"), tools: [WEATHER] });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect(final.choices[0].finish_reason).toBe('tool_calls');
  });

  it('without tools: reasoning is split from the answer; separate_reasoning: false keeps it in content', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: ask('Say hello') });
    const msg = r.choices[0].message as Message;
    expect(msg.reasoning_content).toBe('\nThe user greets me.\n');
    expect(msg.content).toBe('\n\nHello there! How can I help?');
    const raw = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: ask('Say hello'),
      separate_reasoning: false,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    expect(raw.choices[0].message.content).toBe(QWEN_THINK_ANSWER);
  });

  it('tool_choice none leaves the call syntax as text', async () => {
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: ask("What's the weather in Paris?"),
      tools: [WEATHER],
      tool_choice: 'none',
    });
    const msg = r.choices[0].message as Message;
    expect(msg.tool_calls).toBeUndefined();
    expect(msg.content).toContain('<tool_call>');
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('tool_choice required: the constrained array becomes calls, streamed as tool-call deltas too', async () => {
    const messages = ask('What is the weather in Paris and Rome?');
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER], tool_choice: 'required' });
    const calls = (r.choices[0].message.tool_calls ?? []) as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => c.function)).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    const f = await fold(await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER], tool_choice: 'required', stream: true }));
    expect(f.content).toBe('');
    expect(f.calls.map((c) => [c.name, c.arguments])).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['get_weather', '{"city":"Rome"}'],
    ]);
    expect(f.finish).toBe('tool_calls');
  });
});

describe('DeepSeek-V3 tool tokens (e2e)', () => {
  const CALL =
    'Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
  let rig: AnyRig;
  beforeAll(async () => {
    rig = await startAnyRig('vllm', { modelDir: deepseekV3Model, replies: [{ when: 'weather in Paris', reply: CALL }] });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('non-stream and stream give the same call and leading text', async () => {
    const messages = [{ role: 'user' as const, content: "What's the weather in Paris?" }];
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER] });
    const msg = r.choices[0].message;
    expect(msg.content).toBe('Let me check.');
    const call = msg.tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    const f = await fold(await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER], stream: true }));
    expect(f.content).toBe('Let me check.');
    expect(f.calls.map((c) => [c.name, c.arguments])).toEqual([['get_weather', '{"city":"Paris"}']]);
  });
});

describe('Llama 3.1 <|python_tag|> calls with --tool-call-parser llama (e2e)', () => {
  const CALL = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}';
  let rig: AnyRig;
  beforeAll(async () => {
    rig = await startAnyRig('vllm', {
      modelDir: llama31Model,
      gatewayArgs: ['--tool-call-parser', 'llama'],
      replies: [{ when: 'weather in Paris', reply: CALL }],
    });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('the python_tag JSON becomes a tool call, streamed and not', async () => {
    const messages = [{ role: 'user' as const, content: "What's the weather in Paris?" }];
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER] });
    const call = r.choices[0].message.tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(r.choices[0].message.content ?? null).toBeNull();
    const f = await fold(await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER], stream: true }));
    expect(f.calls.map((c) => [c.name, c.arguments])).toEqual([['get_weather', '{"city":"Paris"}']]);
    expect(f.finish).toBe('tool_calls');
  });
});
