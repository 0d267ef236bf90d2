/**
 * The Vercel AI SDK's default OpenAI model, `openai(model)`: the Responses API with `store` on.
 * From the second turn (and in every tool loop) the SDK refers to the output items of earlier
 * responses by id (`item_reference`), so this needs the stateful Responses store (issue 28); until
 * that is merged these cases fail with its 400s, which is why they live in their own file.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFTER_TOOL_TEXT, HELLO_TEXT } from './support/agent-replies.js';
import { type AgentServe, startAgentServe } from './support/agent-serve.js';

let serve: AgentServe;
beforeAll(async () => {
  serve = await startAgentServe();
});
afterAll(async () => {
  await serve?.stop();
});

const model = () => createOpenAI({ baseURL: `${serve.origin}/v1`, apiKey: 'unused' })(serve.model);

const listFiles = tool({
  description: 'List the files of a directory',
  inputSchema: jsonSchema<{ dir: string }>({ type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'] }),
  execute: async ({ dir }) => `README.md package.json (in ${dir})`,
});

describe('AI SDK openai(model), its defaults (Responses, store on) (e2e)', () => {
  it('generateText and streamText: the answer', async () => {
    const r = await generateText({ model: model(), prompt: 'Say hello', maxRetries: 0 });
    expect(r.text.trim()).toBe(HELLO_TEXT);
    const s = streamText({ model: model(), prompt: 'Say hello', maxRetries: 0 });
    let text = '';
    for await (const part of s.textStream) text += part;
    expect(text.trim()).toBe(HELLO_TEXT);
  });

  it('a second turn with the first turn in the history (item_reference)', async () => {
    const first = await generateText({ model: model(), prompt: 'Say hello', maxRetries: 0 });
    const second = await generateText({
      model: model(),
      messages: [{ role: 'user', content: 'Say hello' }, ...first.response.messages, { role: 'user', content: 'Thanks!' }],
      maxRetries: 0,
    });
    expect(second.text.trim()).toBe(HELLO_TEXT);
  });

  it('a tool loop', async () => {
    const r = await generateText({
      model: model(),
      prompt: 'List the files with list_files',
      tools: { list_files: listFiles },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps[0].toolCalls.map((c) => [c.toolName, c.input])).toEqual([['list_files', { dir: '.' }]]);
    expect(r.text.trim()).toBe(AFTER_TOOL_TEXT);
  });
});
