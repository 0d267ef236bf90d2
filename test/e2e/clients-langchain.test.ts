/**
 * LangChain JS as its users call it, against `smg serve` + the mock engine: `ChatOpenAI` over chat
 * completions and over Responses (`useResponsesApi`), `ChatAnthropic` over Messages, and the
 * completions LLM `OpenAI`, through a plain turn, a stream (usage included: LangChain reads the
 * Messages input tokens from `message_start`) and a tool loop (bindTools → the tool runs → its
 * ToolMessage goes back → the answer).
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AFTER_TOOL_TEXT, HELLO_TEXT } from './support/agent-replies.js';
import { type AgentServe, startAgentServe } from './support/agent-serve.js';

/**
 * `@langchain/anthropic`'s declarations do not type-check under TypeScript 7 (its webSearch.d.ts
 * names `Beta.BetaWebSearchTool20250305`, which tsgo does not find through the SDK's namespace
 * re-export, though the declaration is there), and `skipLibCheck` is off project-wide. A specifier
 * held in a variable keeps tsc from loading those declarations; the runtime import is the same.
 */
const LANGCHAIN_ANTHROPIC: string = '@langchain/anthropic';
type ChatAnthropicCtor = new (fields: { model: string; apiKey: string; anthropicApiUrl: string; maxRetries: number }) => BaseChatModel;
const { ChatAnthropic } = (await import(LANGCHAIN_ANTHROPIC)) as { ChatAnthropic: ChatAnthropicCtor };

let serve: AgentServe;
beforeAll(async () => {
  serve = await startAgentServe();
});
afterAll(async () => {
  await serve?.stop();
});

const listFiles = tool(async ({ dir }) => `README.md package.json (in ${dir})`, {
  name: 'list_files',
  description: 'List the files of a directory',
  schema: z.object({ dir: z.string() }),
});

const cases: { name: string; model: () => BaseChatModel }[] = [
  { name: 'ChatOpenAI (chat completions)', model: () => new ChatOpenAI({ model: serve.model, apiKey: 'unused', configuration: { baseURL: `${serve.origin}/v1` }, maxRetries: 0 }) },
  {
    name: 'ChatOpenAI (Responses)',
    model: () => new ChatOpenAI({ model: serve.model, apiKey: 'unused', configuration: { baseURL: `${serve.origin}/v1` }, useResponsesApi: true, maxRetries: 0 }),
  },
  { name: 'ChatAnthropic', model: () => new ChatAnthropic({ model: serve.model, apiKey: 'unused', anthropicApiUrl: serve.origin, maxRetries: 0 }) },
];

describe.each(cases)('LangChain $name (e2e)', ({ model }) => {
  it('invoke: the answer and its token usage', async () => {
    const r = await model().invoke('Say hello');
    expect(r.text.trim()).toBe(HELLO_TEXT);
    expect(r.usage_metadata?.input_tokens).toBeGreaterThan(5);
    expect(r.usage_metadata?.output_tokens).toBeGreaterThan(3);
  });

  it('stream: the chunks add up to the answer, with the same input tokens as invoke', async () => {
    const m = model();
    const whole = await m.invoke('Say hello');
    let acc: AIMessageChunk | undefined;
    for await (const chunk of await m.stream('Say hello')) acc = acc ? acc.concat(chunk) : chunk;
    expect(acc?.text.trim()).toBe(HELLO_TEXT);
    expect(acc?.usage_metadata?.input_tokens).toBe(whole.usage_metadata?.input_tokens);
  });

  it('a tool loop: tool_calls, the ToolMessage back, the answer', async () => {
    const m = model();
    if (!m.bindTools) throw new Error('no bindTools');
    const withTools = m.bindTools([listFiles]);
    const human = new HumanMessage('List the files with list_files');
    const ai = await withTools.invoke([human]);
    expect(ai.tool_calls?.map((c) => [c.name, c.args])).toEqual([['list_files', { dir: '.' }]]);
    const result = await listFiles.invoke(ai.tool_calls![0]);
    const final = await withTools.invoke([human, ai, result]);
    expect(final.text.trim()).toBe(AFTER_TOOL_TEXT);
  });
});

describe('LangChain OpenAI (completions LLM) (e2e)', () => {
  it('invoke and stream over /v1/completions', async () => {
    const llm = new OpenAI({ model: serve.model, apiKey: 'unused', configuration: { baseURL: `${serve.origin}/v1` }, maxRetries: 0, maxTokens: 64 });
    // A raw prompt: no template, no parsers, so the scripted reply comes back as written.
    expect(await llm.invoke('Say hello')).toContain(HELLO_TEXT);
    let streamed = '';
    for await (const part of await llm.stream('Say hello')) streamed += part;
    expect(streamed).toContain(HELLO_TEXT);
  });
});
