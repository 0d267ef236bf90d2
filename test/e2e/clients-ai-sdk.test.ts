/**
 * The Vercel AI SDK (`ai` 6) as its users call it, against `smg serve` + the mock engine: every
 * provider a user would point at this gateway — `@ai-sdk/openai-compatible`, `@ai-sdk/openai`'s
 * chat model and its Responses model with `store: false`, and `@ai-sdk/anthropic` — through a plain
 * turn, a stream and a tool loop (`generateText` running the tool and sending its result back).
 * The Responses model's default (`store` on) is in clients-ai-sdk-responses-default.test.ts.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFTER_TOOL_TEXT, HELLO_TEXT } from './support/agent-replies.js';
import { type AgentServe, startAgentServe } from './support/agent-serve.js';

type ProviderOptions = Parameters<typeof generateText>[0]['providerOptions'];

let serve: AgentServe;
beforeAll(async () => {
  serve = await startAgentServe();
});
afterAll(async () => {
  await serve?.stop();
});

const seen: string[][] = [];
const listFiles = tool({
  description: 'List the files of a directory',
  inputSchema: jsonSchema<{ dir: string }>({ type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'] }),
  execute: async ({ dir }) => {
    seen.push([dir]);
    return `README.md package.json (in ${dir})`;
  },
});

interface Case {
  name: string;
  model: () => LanguageModel;
  providerOptions?: ProviderOptions;
  /** Whether the provider surfaces the model's thinking as reasoning text. */
  reasoning: boolean;
  /** Whether a stream asks for usage by default (openai-compatible needs `includeUsage`). */
  streamUsage?: boolean;
  /** Whether the provider puts the previous turn's reasoning into the next request. */
  sendsReasoningBack?: boolean;
}

const cases: Case[] = [
  {
    name: '@ai-sdk/openai-compatible',
    model: () => createOpenAICompatible({ name: 'smg', baseURL: `${serve.origin}/v1` })(serve.model),
    reasoning: true,
    streamUsage: false,
    sendsReasoningBack: true,
  },
  { name: '@ai-sdk/openai .chat()', model: () => createOpenAI({ baseURL: `${serve.origin}/v1`, apiKey: 'unused' }).chat(serve.model), reasoning: false },
  {
    name: '@ai-sdk/openai responses, store: false',
    model: () => createOpenAI({ baseURL: `${serve.origin}/v1`, apiKey: 'unused' }).responses(serve.model),
    // A model id the SDK does not know is no reasoning model to it: `forceReasoning` (its documented
    // switch for other providers' reasoning models) lets `reasoningSummary` reach the request.
    providerOptions: { openai: { store: false, forceReasoning: true, reasoningSummary: 'auto' } },
    reasoning: true,
  },
  {
    name: '@ai-sdk/anthropic',
    model: () => createAnthropic({ baseURL: `${serve.origin}/v1`, apiKey: 'unused' })(serve.model),
    reasoning: true,
    sendsReasoningBack: true,
  },
];

describe.each(cases)('AI SDK $name (e2e)', ({ model, providerOptions, reasoning, streamUsage = true, sendsReasoningBack = false }) => {
  it('generateText: the answer, its reasoning, usage', async () => {
    const r = await generateText({ model: model(), prompt: 'Say hello', providerOptions, maxRetries: 0 });
    expect(r.text.trim()).toBe(HELLO_TEXT);
    if (reasoning) expect(r.reasoningText?.trim()).toBe('A greeting.');
    expect(r.finishReason).toBe('stop');
    expect(r.usage.inputTokens).toBeGreaterThan(5);
    expect(r.usage.outputTokens).toBeGreaterThan(3);
  });

  it('streamText: the same answer from the stream', async () => {
    const r = streamText({ model: model(), prompt: 'Say hello', providerOptions, maxRetries: 0 });
    let streamed = '';
    for await (const part of r.textStream) streamed += part;
    expect(streamed.trim()).toBe(HELLO_TEXT);
    if (reasoning) expect((await r.reasoningText)?.trim()).toBe('A greeting.');
    if (streamUsage) expect((await r.usage).inputTokens).toBeGreaterThan(5);
    expect(await r.finishReason).toBe('stop');
  });

  it('a tool loop: the call runs, its result goes back, the model answers', async () => {
    const before = seen.length;
    const r = await generateText({
      model: model(),
      prompt: 'List the files with list_files',
      tools: { list_files: listFiles },
      stopWhen: stepCountIs(3),
      providerOptions,
      maxRetries: 0,
    });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0].toolCalls.map((c) => [c.toolName, c.input])).toEqual([['list_files', { dir: '.' }]]);
    expect(seen.slice(before)).toEqual([['.']]);
    expect(r.text.trim()).toBe(AFTER_TOOL_TEXT);
  });

  it('a second turn with the first turn\'s messages (reasoning included) in the history', async () => {
    const first = await generateText({ model: model(), prompt: 'Say hello', providerOptions, maxRetries: 0 });
    const second = await generateText({
      model: model(),
      messages: [{ role: 'user', content: 'Say hello' }, ...first.response.messages, { role: 'user', content: 'Thanks!' }],
      providerOptions,
      maxRetries: 0,
    });
    // The mock answers by the prompt's first user turn; what matters is the history went through.
    expect(second.text.trim()).toBe(HELLO_TEXT);
    // Anthropic's provider keeps the thinking block only with its signature; chat sends reasoning_content.
    if (sendsReasoningBack) expect(JSON.stringify(second.request.body)).toContain('A greeting.');
  });
});
