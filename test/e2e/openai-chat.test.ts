/**
 * /v1/chat/completions end to end: the official `openai` client → `smg launch` → ZeroMQ →
 * `smg mock-engine` in script mode (Qwen3 tokenizer), which emits MOCK_TEXT and then the EOS id
 * the gateway put on the request.
 */
import OpenAI, { type APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_TEXT, chatPrompt, decode, encode } from './support/qwen.js';
import { type Rig, engineLines, settle, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.stop();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const SCRIPT_TOKENS = encode(MOCK_TEXT).length;
// Chunks carry SMG's extension field next to the OpenAI ones.
type Ext = { matched_stop?: string | number };

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

function streamedText(chunks: ChatCompletionChunk[], index = 0): string {
  return chunks.flatMap((c) => c.choices.filter((ch) => ch.index === index).map((ch) => ch.delta.content ?? '')).join('');
}

interface Answer {
  text: string;
  finish: string | null;
  matched: unknown;
  finishChunks: number;
  usage: OpenAI.CompletionUsage | undefined;
}

/** One request, streamed or not, reduced to what both forms must agree on. */
async function ask(body: Record<string, unknown>, stream: boolean): Promise<Answer> {
  const params = { model: rig.model, ...body };
  if (!stream) {
    const r = await rig.openai.chat.completions.create(params as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const c = r.choices[0];
    return { text: c.message.content ?? '', finish: c.finish_reason, matched: (c as Ext).matched_stop, finishChunks: 1, usage: r.usage };
  }
  const chunks = await collect(
    await rig.openai.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } } as OpenAI.ChatCompletionCreateParamsStreaming),
  );
  const fin = chunks.flatMap((c) => c.choices.filter((ch) => ch.finish_reason !== null));
  return {
    text: streamedText(chunks),
    finish: fin[0]?.finish_reason ?? null,
    matched: (fin[0] as Ext | undefined)?.matched_stop,
    finishChunks: fin.length,
    usage: chunks.at(-1)?.usage ?? undefined,
  };
}

describe('chat completions', () => {
  it('non-stream: scripted text, EOS finish, usage = rendered prompt + script + EOS', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(r.object).toBe('chat.completion');
    expect(r.model).toBe(rig.model);
    expect(r.id).toMatch(/^chatcmpl-/);
    expect(r.choices).toHaveLength(1);
    const [c] = r.choices;
    expect(c.index).toBe(0);
    expect(c.message.role).toBe('assistant');
    expect(c.message.content).toBe(MOCK_TEXT);
    expect(c.finish_reason).toBe('stop');
    // EOS by the primary id: the engine reports no stop_reason, so nothing is "matched".
    expect((c as Ext).matched_stop).toBeUndefined();
    expect(c.logprobs).toBeUndefined();
    const promptTokens = encode(chatPrompt('Hi')).length;
    expect(r.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: SCRIPT_TOKENS + 1,
      total_tokens: promptTokens + SCRIPT_TOKENS + 1,
    });
  });

  it('the access-log line (info, the default) names the worker and the token counts', async () => {
    const id = uniqueRid('alog');
    await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') }, { headers: { 'x-request-id': id } });
    const find = () => rig.gatewayOutput().split('\n').find((l) => l.includes(`request_id=${id}`));
    const end = Date.now() + 20_000;
    while (find() === undefined && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const promptTokens = encode(chatPrompt('Hi')).length;
    expect(find()).toMatch(
      new RegExp(`INFO  POST /v1/chat/completions 200 \\d+ms request_id=${id} worker=ipc://\\S+ prompt_tokens=${promptTokens} completion_tokens=${SCRIPT_TOKENS + 1}$`),
    );
  });

  it('records router metrics: request count, TTFT and input/output tokens', async () => {
    const metric = async (re: RegExp) => Number(re.exec(await (await fetch(rig.metricsURL)).text())?.[1] ?? 0);
    const requests = /smg_router_requests_total\{[^}]*endpoint="chat_completions"[^}]*streaming="false"[^}]*\} (\d+)/;
    const output = /smg_router_tokens_total\{[^}]*endpoint="chat_completions"[^}]*token_type="output"[^}]*\} (\d+)/;
    const ttft = /smg_router_ttft_seconds_count\{[^}]*endpoint="chat_completions"[^}]*\} (\d+)/;
    const before = [await metric(requests), await metric(output), await metric(ttft)];
    await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(await metric(requests)).toBe(before[0] + 1);
    expect(await metric(output)).toBe(before[1] + SCRIPT_TOKENS + 1);
    expect(await metric(ttft)).toBe(before[2] + 1);
  });

  it('stream: role first, text equals the script, one finish chunk, usage chunk, then [DONE]', async () => {
    const chunks = await collect(
      await rig.openai.chat.completions.create({
        model: rig.model,
        messages: user('Hi there'),
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(1);
    expect(new Set(chunks.map((c) => c.created)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === rig.model)).toBe(true);

    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks[0].choices[0].delta.content).toBeUndefined();
    expect(streamedText(chunks)).toBe(MOCK_TEXT);

    const finishes = chunks.flatMap((c) => c.choices.filter((ch) => ch.finish_reason !== null));
    expect(finishes).toHaveLength(1);
    expect(finishes[0].finish_reason).toBe('stop');
    expect(finishes[0].delta.content).toBeUndefined();

    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    const promptTokens = encode(chatPrompt('Hi there')).length;
    expect(last.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: SCRIPT_TOKENS + 1,
      total_tokens: promptTokens + SCRIPT_TOKENS + 1,
    });
    // Only the usage chunk carries usage.
    expect(chunks.slice(0, -1).every((c) => c.usage === undefined || c.usage === null)).toBe(true);
  });

  it("the client's stream helper assembles the final completion, even for a choice with no text", async () => {
    const full = await rig.openai.chat.completions
      .stream({ model: rig.model, messages: user('Hi'), stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(full.choices[0].message).toMatchObject({ role: 'assistant', content: MOCK_TEXT });
    expect(full.choices[0].finish_reason).toBe('stop');
    expect(full.usage?.completion_tokens).toBe(SCRIPT_TOKENS + 1);

    // A stop string at the very start: no text at all, but still a role and a finish chunk.
    const empty = await rig.openai.chat.completions.stream({ model: rig.model, messages: user('Hi'), stop: ['Hello'] }).finalChatCompletion();
    expect(empty.choices[0].finish_reason).toBe('stop');
    expect(empty.choices[0].message.role).toBe('assistant');
    expect(empty.choices[0].message.content ?? '').toBe('');
  });

  it('stream without include_usage sends no usage chunk', async () => {
    const chunks = await collect(
      await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), stream: true }),
    );
    expect(chunks.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
  });

  it('raw SSE: event-stream headers, data frames, [DONE] last', async () => {
    const res = await fetch(`${rig.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: rig.model, messages: user('Hi'), stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/^chatcmpl-/);
    const body = await res.text();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    const frames = body.split('\n\n').filter(Boolean);
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(frames.filter((f) => f === 'data: [DONE]')).toHaveLength(1);
  });

  it('a stop string spanning tokens is trimmed and finishes "stop" with matched_stop', async () => {
    // "ted rep" starts inside " scripted" and ends inside " reply".
    for (const stream of [false, true]) {
      const rid = uniqueRid('span');
      const r = await ask({ messages: user('Hi'), stop: ['ted rep'], rid }, stream);
      expect(r).toMatchObject({ text: 'Hello! This is a scrip', finish: 'stop', matched: 'ted rep', finishChunks: 1 });
      // One engine request per HTTP request, under the client's rid.
      await waitForEngineLine(rig, 'request added', rid);
      expect(engineLines(rig, 'request added', rid)).toHaveLength(1);
    }
  });

  it('no_stop_trim / include_stop_str_in_output keep the matched stop string', async () => {
    for (const flag of ['no_stop_trim', 'include_stop_str_in_output']) {
      const r = await rig.openai.chat.completions.create({
        model: rig.model,
        messages: user('Hi'),
        stop: ['ted rep'],
        [flag]: true,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming);
      expect(r.choices[0].message.content, flag).toBe('Hello! This is a scripted rep');
      expect(r.choices[0].finish_reason).toBe('stop');
      expect((r.choices[0] as Ext).matched_stop).toBe('ted rep');
    }
  });

  it('a single-token stop string becomes an engine stop id: the engine itself stops on it', async () => {
    expect(encode(' mock')).toHaveLength(1);
    const upTo = encode(MOCK_TEXT).indexOf(encode(' mock')[0]) + 1;
    for (const stream of [false, true]) {
      const rid = uniqueRid('onetoken');
      const r = await ask({ messages: user('Hi'), stop: ' mock', rid }, stream);
      expect(r).toMatchObject({ text: 'Hello! This is a scripted reply from the smg', finish: 'stop', matched: ' mock' });
      if (!stream) expect(r.usage!.completion_tokens).toBe(upTo);
      // The engine finished on its own at the stop token: no abort was needed.
      expect(await waitForEngineLine(rig, 'request finished', rid)).toMatch(new RegExp(`reason=stop tokens=${upTo}\\b`));
      await settle();
      expect(engineLines(rig, 'abort', rid)).toEqual([]);
    }
  });

  it('a single-token stop string with no_stop_trim keeps the token text', async () => {
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: user('Hi'),
      stop: [' mock'],
      no_stop_trim: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.choices[0].message.content).toBe('Hello! This is a scripted reply from the smg mock');
    expect((r.choices[0] as Ext).matched_stop).toBe(' mock');
  });

  it('template inputs: content parts, thinking off via chat_template_kwargs or reasoning_effort', async () => {
    const usage = async (body: Record<string, unknown>) =>
      (await rig.openai.chat.completions.create({ model: rig.model, max_tokens: 1, ...body } as OpenAI.ChatCompletionCreateParamsNonStreaming)).usage!
        .prompt_tokens;
    const plain = encode(chatPrompt('Hi')).length;
    expect(await usage({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] })).toBe(plain);
    // Qwen3 pre-fills an empty think block when thinking is switched off.
    const off = encode(chatPrompt('Hi') + '<think>\n\n</think>\n\n').length;
    expect(await usage({ messages: user('Hi'), chat_template_kwargs: { enable_thinking: false } })).toBe(off);
    expect(await usage({ messages: user('Hi'), reasoning_effort: 'none' })).toBe(off);
    expect(await usage({ messages: user('Hi'), reasoning_effort: 'high' })).toBe(plain);
    // An explicit kwarg wins over reasoning_effort.
    expect(await usage({ messages: user('Hi'), reasoning_effort: 'minimal', chat_template_kwargs: { enable_thinking: true } })).toBe(plain);
  });

  it('tools are rendered into the prompt; an assistant tool call with JSON-string arguments renders', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const without = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), max_tokens: 1 });
    const withTools = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), tools, max_tokens: 1 });
    expect(withTools.usage!.prompt_tokens).toBeGreaterThan(without.usage!.prompt_tokens + 20);
    const history = await rig.openai.chat.completions.create({
      model: rig.model,
      max_tokens: 1,
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ],
    });
    expect(history.choices[0].finish_reason).toBe('length');
    const bad = await rig.openai.chat.completions
      .create({
        model: rig.model,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{oops' } }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as APIError).error).toMatchObject({ code: 'process_messages_failed' });
  });

  it('stop_token_ids: the engine stops on the id, matched_stop is that id, its text is hidden', async () => {
    const id = encode(' mock')[0];
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: user('Hi'),
      stop_token_ids: [id],
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.choices[0].message.content).toBe('Hello! This is a scripted reply from the smg');
    expect(r.choices[0].finish_reason).toBe('stop');
    expect((r.choices[0] as Ext).matched_stop).toBe(id);
  });

  it('rid is the response id and the engine request id; x-request-id prefixes the generated id', async () => {
    const rid = uniqueRid('mine');
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), rid } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.id).toBe(rid);
    await waitForEngineLine(rig, 'request added', rid);

    const res = await rig.openai.chat.completions
      .create({ model: rig.model, messages: user('Hi') }, { headers: { 'x-request-id': 'trace-42' } })
      .withResponse();
    expect(res.response.headers.get('x-request-id')).toBe('trace-42');
    expect(res.data.id).toMatch(/^trace-42-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  });

  it('concurrent requests each get their own complete answer', async () => {
    const rs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rig.openai.chat.completions.create({ model: rig.model, messages: user(`q${i}`), max_tokens: 3 + (i % 5) }),
      ),
    );
    const script = encode(MOCK_TEXT);
    rs.forEach((r, i) => {
      const k = 3 + (i % 5);
      expect(r.usage!.completion_tokens).toBe(k);
      expect(r.choices[0].message.content).toBe(decode(script.slice(0, k)));
      expect(r.usage!.prompt_tokens).toBe(encode(chatPrompt(`q${i}`)).length);
    });
    expect(new Set(rs.map((r) => r.id)).size).toBe(rs.length);
  });

  it('ignore_eos runs to max_tokens ("length"); the mock repeats its script', async () => {
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: user('Hi'),
      max_tokens: SCRIPT_TOKENS + 6,
      ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.usage!.completion_tokens).toBe(SCRIPT_TOKENS + 6);
    expect(r.choices[0].message.content).toBe(MOCK_TEXT + 'Hello! This is a scripted');
  });

  it('max_tokens below the script length finishes "length" with exactly that many tokens', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), max_completion_tokens: 3 });
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.choices[0].message.content).toBe('Hello! This');
    expect(r.usage!.completion_tokens).toBe(3);
  });

  it('n = 2 with a seed: indices 0 and 1, seed+i per choice, deterministic across repeats', async () => {
    const once = async () => {
      const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), n: 2, seed: 1 });
      expect(r.choices.map((c) => c.index)).toEqual([0, 1]);
      expect(r.choices.every((c) => c.finish_reason === 'stop')).toBe(true);
      return r;
    };
    const a = await once();
    const b = await once();
    const texts = a.choices.map((c) => c.message.content);
    expect(texts[0]).not.toBe(texts[1]);
    expect(b.choices.map((c) => c.message.content)).toEqual(texts);
    // The mock rotates the script by seed: seed 1 skips "Hello", seed 2 also skips "!".
    expect(texts).toEqual(['! This is a scripted reply from the smg mock engine.', ' This is a scripted reply from the smg mock engine.']);
    const prompt = encode(chatPrompt('Hi')).length;
    // Each choice ends with EOS: seed 1 emits 13 script tokens + EOS, seed 2 emits 12 + EOS.
    expect(a.usage).toEqual({ prompt_tokens: prompt, completion_tokens: 14 + 13, total_tokens: prompt + 27 });

    const chunks = await collect(
      await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), n: 2, seed: 1, stream: true }),
    );
    expect([streamedText(chunks, 0), streamedText(chunks, 1)]).toEqual(texts);
    const fins = chunks.flatMap((c) => c.choices.filter((ch) => ch.finish_reason !== null));
    expect(fins.map((f) => f.index).sort()).toEqual([0, 1]);
    for (const i of [0, 1]) {
      const first = chunks.find((c) => c.choices[0]?.index === i)!;
      expect(first.choices[0].delta.role).toBe('assistant');
    }
  });

  it('logprobs with top_logprobs 2: token/logprob/bytes per position, sampled token first', async () => {
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: user('Hi'),
      logprobs: true,
      top_logprobs: 2,
      max_tokens: 4,
    });
    const content = r.choices[0].logprobs!.content!;
    expect(content.map((e) => e.token)).toEqual(['Hello', '!', ' This', ' is']);
    for (const e of content) {
      expect(Object.keys(e).sort()).toEqual(['bytes', 'logprob', 'token', 'top_logprobs']);
      expect(e.logprob).toBeLessThan(0);
      expect(e.bytes).toEqual([...Buffer.from(e.token, 'utf8')]);
      expect(e.top_logprobs).toHaveLength(2);
      expect(e.top_logprobs[0]).toEqual({ token: e.token, logprob: e.logprob, bytes: e.bytes });
      expect(e.top_logprobs[1].logprob).toBeLessThan(e.logprob);
    }

    const chunks = await collect(
      await rig.openai.chat.completions.create({
        model: rig.model,
        messages: user('Hi'),
        logprobs: true,
        top_logprobs: 2,
        max_tokens: 4,
        stream: true,
      }),
    );
    const streamed = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.logprobs?.content ?? []));
    expect(streamed).toEqual(content);
  });

  it('logprobs without top_logprobs: one top entry, the sampled token', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), logprobs: true, max_tokens: 2 });
    const content = r.choices[0].logprobs!.content!;
    expect(content).toHaveLength(2);
    expect(content.every((e) => e.top_logprobs.length === 1 && e.top_logprobs[0].token === e.token)).toBe(true);
  });
});

describe('chat errors (nothing reaches the engine)', () => {
  async function rejects(body: Record<string, unknown>): Promise<APIError> {
    const rid = uniqueRid('rejected');
    const err = await rig.openai.chat.completions
      .create({ model: rig.model, messages: user('Hi'), rid, ...body } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    await settle();
    expect(engineLines(rig, 'request added', rid)).toEqual([]);
    return err as APIError;
  }

  it('prompt longer than the context → 400 with the OpenAI error envelope', async () => {
    const err = await rejects({ messages: user('word '.repeat(5000)) });
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded', param: null });
    expect(err.message).toContain("This model's maximum context length is 4096 tokens");
  });

  it('max_tokens beyond the context → 400', async () => {
    const err = await rejects({ max_tokens: 5000 });
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain("'max_tokens' or 'max_completion_tokens' is too large: 5000");
  });

  it('top_p 0 → 400', async () => {
    const err = await rejects({ top_p: 0 });
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain('top_p must be in (0, 1]');
  });

  it('empty messages → 400', async () => {
    const err = await rejects({ messages: [] });
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain('messages cannot be empty');
  });

  it('stream_options without stream, top_logprobs without logprobs → 400', async () => {
    expect(await rejects({ stream_options: { include_usage: true } })).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await rejects({ top_logprobs: 2 })).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('unknown model → 404 model_not_found', async () => {
    const err = await rejects({ model: 'no-such-model' });
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found', param: null });
    expect(err.message).toContain("No worker available for model 'no-such-model'");
  });

  it('malformed JSON → 400 json_parse_error', async () => {
    const res = await fetch(`${rig.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"model":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('json_parse_error');
  });
});
