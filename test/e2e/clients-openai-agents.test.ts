/**
 * The OpenAI Agents SDK (`@openai/agents` 0.20) as its users run it, against `smg serve` + the mock
 * engine: an agent with a function tool over its default Responses model and over the chat
 * completions model, run to its final output (the tool runs and its result goes back), plain and
 * streamed.
 */
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AFTER_TOOL_TEXT, HELLO_TEXT } from './support/agent-replies.js';
import { type AgentServe, startAgentServe } from './support/agent-serve.js';

// Tracing would export spans to OpenAI's servers.
setTracingDisabled(true);

let serve: AgentServe;
beforeAll(async () => {
  serve = await startAgentServe();
});
afterAll(async () => {
  await serve?.stop();
});

const calls: string[] = [];
const listFiles = tool({
  name: 'list_files',
  description: 'List the files of a directory',
  parameters: z.object({ dir: z.string() }),
  execute: async ({ dir }) => {
    calls.push(dir);
    return `README.md package.json (in ${dir})`;
  },
});

// The SDK bundles its own `openai` (7.x); its models take any client with the same surface.
const client = () => new OpenAI({ baseURL: `${serve.origin}/v1`, apiKey: 'unused', maxRetries: 0 }) as never;

const models = [
  { name: 'Responses model (the default)', make: () => new OpenAIResponsesModel(client(), serve.model) },
  { name: 'chat completions model', make: () => new OpenAIChatCompletionsModel(client(), serve.model) },
];

describe.each(models)('OpenAI Agents SDK, $name (e2e)', ({ make }) => {
  const agent = () => new Agent({ name: 'helper', instructions: 'Be brief.', model: make(), tools: [listFiles] });

  it('run: a plain answer', async () => {
    const r = await run(agent(), 'Say hello');
    expect(String(r.finalOutput).trim()).toBe(HELLO_TEXT);
  });

  it('run: the tool runs, its output goes back, the final answer', async () => {
    const before = calls.length;
    const r = await run(agent(), 'List the files with list_files');
    expect(calls.slice(before)).toEqual(['.']);
    expect(String(r.finalOutput).trim()).toBe(AFTER_TOOL_TEXT);
  });

  it('run streamed: text deltas add up to the final answer, through the tool loop', async () => {
    const s = await run(agent(), 'List the files with list_files', { stream: true });
    let text = '';
    for await (const chunk of s.toTextStream()) text += chunk;
    await s.completed;
    expect(text.trim()).toContain(AFTER_TOOL_TEXT);
    expect(String(s.finalOutput).trim()).toBe(AFTER_TOOL_TEXT);
  });
});
