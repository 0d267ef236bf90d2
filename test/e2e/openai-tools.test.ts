/**
 * Forced tool calls end to end: the official `openai` client → `smg launch` → ZeroMQ →
 * `smg mock-engine` scripted to answer with a JSON object. The gateway constrains the engine with
 * the tool's JSON schema (read back from the mock's request log), filters the tools it renders
 * into the prompt, and turns the constrained text into `tool_calls`.
 */
import OpenAI, { type APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

const ARGS = '{"city": "Paris", "unit": "celsius"}';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--mock-text', ARGS] });
});
afterAll(async () => {
  await rig?.stop();
});

const weatherParams = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
};
const WEATHER = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherParams },
};
const STOCKS = {
  type: 'function' as const,
  function: {
    name: 'get_stock_quote',
    description: 'Latest quote for a ticker symbol on a stock exchange, with a long description to weigh on the prompt',
    parameters: { type: 'object', properties: { ticker: { type: 'string' }, exchange: { type: 'string' } }, required: ['ticker'] },
  },
};
const NAMED = { type: 'function' as const, function: { name: 'get_weather' } };
const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];

interface Added {
  prompt: number;
  structured: Record<string, unknown> | null;
}

/** Runs one non-streamed request under a fresh rid and returns it with the mock's view of it. */
async function ask(body: Record<string, unknown>): Promise<{ r: OpenAI.ChatCompletion; added: Added }> {
  const rid = uniqueRid('tools');
  const params = { model: rig.model, messages, ...body, rid } as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const r = await rig.openai.chat.completions.create(params);
  const line = await waitForEngineLine(rig, 'request added', rid);
  const prompt = Number(/ prompt=(\d+)/.exec(line)?.[1]);
  const so = /structured_outputs=(\{.*\})/.exec(line)?.[1];
  return { r, added: { prompt, structured: so ? (JSON.parse(so) as Record<string, unknown>) : null } };
}

describe('forced tool_choice', () => {
  it('named function: tool_calls with parsed arguments, finish tool_calls, the schema sent to the engine', async () => {
    const { r, added } = await ask({ tools: [WEATHER, STOCKS], tool_choice: NAMED });
    const [c] = r.choices;
    expect(c.finish_reason).toBe('tool_calls');
    expect(c.message.content ?? null).toBeNull();
    expect(c.message.tool_calls).toHaveLength(1);
    const call = c.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    expect(call.function.arguments).toBe('{"city":"Paris","unit":"celsius"}');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(added.structured).toEqual({ json: weatherParams, backend: 'guidance' });
  });

  it('tools are filtered in the prompt: a named choice renders only its tool', async () => {
    const named = await ask({ tools: [WEATHER, STOCKS], tool_choice: NAMED });
    const onlyWeather = await ask({ tools: [WEATHER] });
    const both = await ask({ tools: [WEATHER, STOCKS] });
    // Qwen3's template ignores tool_choice, so the same single tool renders the same prompt.
    expect(named.added.prompt).toBe(onlyWeather.added.prompt);
    expect(both.added.prompt).toBeGreaterThan(onlyWeather.added.prompt + 20);
    // tool_choice auto: no constraint, the text stays content.
    expect(both.added.structured).toBeNull();
    expect(both.r.choices[0].message.content).toBe(ARGS);
    expect(both.r.choices[0].finish_reason).toBe('stop');

    const allowed = await ask({
      tools: [WEATHER, STOCKS],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'get_weather' }] },
    });
    expect(allowed.added.prompt).toBe(onlyWeather.added.prompt);
    expect(allowed.added.structured).toBeNull();
  });

  it('required: the engine gets the array schema; a non-array answer stays content', async () => {
    const { r, added } = await ask({ tools: [WEATHER, STOCKS], tool_choice: 'required' });
    const json = added.structured?.json as { type: string; items: { anyOf: { properties: { name: { enum: string[] } } }[] } };
    expect(json.type).toBe('array');
    expect(json.items.anyOf.map((a) => a.properties.name.enum[0])).toEqual(['get_weather', 'get_stock_quote']);
    expect(r.choices[0].message.content).toBe(ARGS);
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('streaming named function: name chunk, then the raw text as arguments', async () => {
    const stream = await rig.openai.chat.completions.create({ model: rig.model, messages, tools: [WEATHER], tool_choice: NAMED, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const calls = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(calls[0].id).toMatch(/^call_/);
    expect(calls.slice(1).every((t) => t.id === undefined && t.function?.name === undefined)).toBe(true);
    expect(calls.map((t) => t.function?.arguments ?? '').join('')).toBe(ARGS);
    expect(chunks.some((c) => c.choices.some((ch) => ch.delta.content))).toBe(false);
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('bad tool_choice and conflicting $defs are 400s', async () => {
    const fail = async (body: Record<string, unknown>): Promise<APIError> => {
      const err = await rig.openai.chat.completions
        .create({ model: rig.model, messages, ...body } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      return err as APIError;
    };
    const mode = await fail({ tools: [WEATHER], tool_choice: { type: 'allowed_tools', mode: 'any', tools: [] } });
    expect(mode.status).toBe(400);
    expect(mode.message).toContain("Invalid value for 'tool_choice.mode': must be 'auto' or 'required', got 'any'.");

    const withDefs = (name: string, def: unknown) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: def } } },
    });
    const conflict = await fail({ tools: [withDefs('x', { type: 'string' }), withDefs('y', { type: 'integer' })], tool_choice: 'required' });
    expect(conflict.status).toBe(400);
    expect(conflict.code).toBe('invalid_tool_configuration');
    expect(conflict.message).toContain("Invalid tool configuration: Tool definition 'A' has multiple conflicting schemas");
  });
});
