/**
 * Response shaping from synthetic generation events (no engine): chat JSON and SSE chunk order,
 * completions echo/suffix/index/finish mapping, logprob shapes and usage aggregation.
 */
import { describe, expect, it } from 'vitest';
import type { TokenLogprob } from '../../src/engine/types.js';
import { type ChatMeta, chatJson, chatSse } from '../../src/api/openai/chat-respond.js';
import { type CompletionMeta, completionJson, completionSse } from '../../src/api/openai/completion-respond.js';
import { collectChoices } from '../../src/pipeline/collect.js';
import { chatLogprobs, completionLogprobs } from '../../src/api/openai/logprobs-format.js';
import type { Decoder } from '../../src/pipeline/detokenizer.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import { UsageTally } from '../../src/pipeline/usage.js';
import { ssePayloads } from '../support/events.js';

/** Token id n decodes to VOCAB[n]; id 9 is a "special" token hidden when skipping. */
const VOCAB = ['He', 'llo', ' world', '!', ' ', 'é', '\uFFFD', 'x', 'y', '<eos>'];
const tok: Decoder = { decode: (ids, skip) => ids.map((i) => (skip && i === 9 ? '' : VOCAB[i])).join('') };

function lp(tokenId: number, logprob: number, ...top: [number, number][]): TokenLogprob {
  return { tokenId, logprob, rank: 1, top: top.map(([id, l]) => ({ tokenId: id, logprob: l })) };
}

async function* events(list: GenEvent[]): AsyncGenerator<GenEvent> {
  for (const e of list) yield e;
}

const delta = (index: number, text: string, logprobs: TokenLogprob[] | null = null): GenEvent => ({ kind: 'text', index, text, logprobs });
const end = (
  index: number,
  finishReason: 'stop' | 'length' | 'abort',
  over: Partial<Extract<GenEvent, { kind: 'end' }>> = {},
): GenEvent => ({
  kind: 'end',
  index,
  finishReason,
  matchedStop: null,
  promptTokens: 5,
  completionTokens: 3,
  cachedTokens: 0,
  logprobs: null,
  ...over,
});

/** The non-streaming answers, folded from an event stream as the pipeline's collector does. */
const collectChat = async (evs: AsyncIterable<GenEvent>, meta: ChatMeta) => chatJson(await collectChoices(evs, meta.n, meta.n), meta);
const collectCompletion = async (evs: AsyncIterable<GenEvent>, meta: CompletionMeta) =>
  completionJson(await collectChoices(evs, meta.echoText.length * meta.n, meta.n), meta);

const chatMeta = (over: Partial<ChatMeta> = {}): ChatMeta => ({
  id: 'chatcmpl-1',
  created: 1700000000,
  model: 'm',
  n: 1,
  tokenizer: tok,
  topLogprobs: null,
  includeUsage: false,
  ...over,
});


describe('collectChat', () => {
  it('the §12.1 shape: key order, reasoning_content null, no logprobs key when not requested', async () => {
    const body = await collectChat(events([delta(0, 'Hello'), delta(0, '!'), end(0, 'stop')]), chatMeta());
    expect(JSON.stringify(body)).toBe(
      '{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,' +
        '"message":{"role":"assistant","content":"Hello!","reasoning_content":null},"finish_reason":"stop"}],' +
        '"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8},"system_fingerprint":"default"}',
    );
  });

  it('n = 2 arriving out of order is sorted by index; usage = max prompt, summed completion, cached when > 0', async () => {
    const body = await collectChat(
      events([
        delta(1, 'b'),
        end(1, 'length', { completionTokens: 4, promptTokens: 6, cachedTokens: 2 }),
        delta(0, 'a'),
        end(0, 'stop', { matchedStop: '\n', completionTokens: 2 }),
      ]),
      chatMeta({ n: 2 }),
    );
    const choices = body.choices as Record<string, unknown>[];
    expect(choices.map((c) => [c.index, (c.message as { content: string }).content, c.finish_reason, c.matched_stop])).toEqual([
      [0, 'a', 'stop', '\n'],
      [1, 'b', 'length', undefined],
    ]);
    expect(body.usage).toEqual({ prompt_tokens: 6, completion_tokens: 6, total_tokens: 12, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it('whitespace-only content is null (the key stays, as OpenAI and vLLM send it); a token-stop matched_stop is a number', async () => {
    const body = await collectChat(events([delta(0, ' \n'), end(0, 'stop', { matchedStop: 42 })]), chatMeta());
    const [choice] = body.choices as Record<string, unknown>[];
    expect(JSON.stringify(choice.message)).toBe('{"role":"assistant","content":null,"reasoning_content":null}');
    expect(choice.matched_stop).toBe(42);
  });

  it('logprobs gather every position, including those reported with the end event', async () => {
    const body = await collectChat(
      events([delta(0, 'He', [lp(0, -0.1, [0, -0.1], [1, -2])]), end(0, 'stop', { logprobs: [lp(9, -0.5)] })]),
      chatMeta({ topLogprobs: 2 }),
    );
    const [choice] = body.choices as { logprobs: { content: { token: string }[] } }[];
    expect(choice.logprobs.content.map((e) => e.token)).toEqual(['He', '<eos>']);
  });
});

describe('chatSse', () => {
  it('role chunk, content chunks, one finish chunk, usage chunk, [DONE] — the §12.2 example bytes', async () => {
    const out = ssePayloads(chatSse(chatMeta({ includeUsage: true })), [delta(0, 'Hel'), delta(0, 'lo!'), end(0, 'stop', { completionTokens: 4, promptTokens: 12 })]);
    const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","system_fingerprint":"default","choices":[';
    expect(out).toEqual([
      `${head}{"index":0,"delta":{"role":"assistant","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`,
      `${head}{"index":0,"delta":{"role":"assistant","content":"Hel","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`,
      `${head}{"index":0,"delta":{"role":"assistant","content":"lo!","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`,
      `${head}{"index":0,"delta":{"reasoning_content":null},"logprobs":null,"finish_reason":"stop"}]}`,
      `${head}],"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`,
      '[DONE]',
    ]);
    for (const f of out.slice(0, -1)) JSON.parse(f);
  });

  it('a role chunk per index before its first content; matched_stop rides the finish chunk', async () => {
    const out = ssePayloads(chatSse(chatMeta({ n: 2 })), [delta(1, 'b'), delta(0, 'a'), end(0, 'stop', { matchedStop: 'x' }), end(1, 'length')]);
    const parsed = out.slice(0, -1).map((f) => JSON.parse(f) as { choices: Record<string, any>[] });
    const seq = parsed.map((p) => {
      const c = p.choices[0];
      return `${c.index}:${c.delta.content ?? (c.finish_reason ? `fin=${c.finish_reason}` : 'role')}${c.matched_stop ? `/${c.matched_stop}` : ''}`;
    });
    expect(seq).toEqual(['1:role', '1:b', '0:role', '0:a', '0:fin=stop/x', '1:fin=length']);
    expect(out.at(-1)).toBe('[DONE]');
  });

  it('an error after the stream started becomes an error frame, then [DONE]', async () => {
    const out = ssePayloads(chatSse(chatMeta({ includeUsage: true })), [delta(0, 'a')], new Error('engine core reported fatal failure'));
    expect(out.slice(-2)).toEqual([
      '{"error":{"message":"Stream error: engine core reported fatal failure","type":"server_error","param":null,"code":"stream_error"}}',
      '[DONE]',
    ]);
    expect(out.some((f) => f.includes('"usage"'))).toBe(false);
  });

  it('content chunks carry that tick’s logprobs', async () => {
    const out = ssePayloads(chatSse(chatMeta({ topLogprobs: 1 })), [delta(0, 'He', [lp(0, -0.1)]), end(0, 'stop')]);
    const content = JSON.parse(out[1]) as { choices: { logprobs: unknown }[] };
    expect(content.choices[0].logprobs).toEqual({
      content: [{ token: 'He', logprob: -0.1, bytes: [72, 101], top_logprobs: [{ token: 'He', logprob: -0.1, bytes: [72, 101] }] }],
    });
  });
});

const completionMeta = (over: Partial<CompletionMeta> = {}): CompletionMeta => ({
  id: 'cmpl-1',
  created: 1700000000,
  model: 'm',
  n: 1,
  echoText: [''],
  suffix: '',
  tokenizer: tok,
  logprobs: null,
  includeUsage: false,
  ...over,
});

describe('collectCompletion', () => {
  it('index = prompt × n + i, echo first, suffix last, usage summed over prompts', async () => {
    const body = await collectCompletion(
      events([
        delta(3, 'd'),
        end(3, 'length', { promptTokens: 7 }),
        delta(0, 'a'),
        end(0, 'stop'),
        delta(1, 'b'),
        end(1, 'stop'),
        delta(2, 'c'),
        end(2, 'stop', { promptTokens: 7 }),
      ]),
      completionMeta({ n: 2, echoText: ['P0:', 'P1:'], suffix: '$' }),
    );
    const choices = body.choices as { text: string; index: number; finish_reason: string }[];
    expect(choices.map((c) => [c.index, c.text, c.finish_reason])).toEqual([
      [0, 'P0:a$', 'stop'],
      [1, 'P0:b$', 'stop'],
      [2, 'P1:c$', 'stop'],
      [3, 'P1:d$', 'length'],
    ]);
    expect(body.usage).toEqual({ prompt_tokens: 12, completion_tokens: 12, total_tokens: 24 });
    expect(Object.keys(body)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage', 'system_fingerprint']);
  });
});

describe('completionSse', () => {
  it('echo rides the first text chunk, suffix gets its own chunk, then the finish chunk; abort maps to stop', async () => {
    const out = ssePayloads(completionSse(completionMeta({ echoText: ['P:'], suffix: '$', includeUsage: true })), [delta(0, 'a'), delta(0, 'b'), end(0, 'abort')]);
    const parsed = out.slice(0, -1).map((f) => JSON.parse(f) as { choices: { text: string; finish_reason: string | null }[]; usage?: unknown });
    expect(parsed.slice(0, 4).map((p) => [p.choices[0].text, p.choices[0].finish_reason])).toEqual([
      ['P:a', null],
      ['b', null],
      ['$', null],
      ['', 'stop'],
    ]);
    expect(parsed[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
    expect(out.at(-1)).toBe('[DONE]');
    // §12.3: choices come before model in the chunk envelope.
    expect(Object.keys(parsed[0])).toEqual(['id', 'object', 'created', 'choices', 'model', 'system_fingerprint']);
  });

  it('echo with no generated text still arrives, before the finish chunk', async () => {
    const out = ssePayloads(completionSse(completionMeta({ echoText: ['P:'] })), [end(0, 'length')]);
    const texts = out.slice(0, -1).map((f) => (JSON.parse(f) as { choices: { text: string }[] }).choices[0].text);
    expect(texts).toEqual(['P:', '']);
  });

  it('streamed logprob text_offset starts after the echoed prompt (as non-stream does)', async () => {
    const list = [delta(0, 'He', [lp(0, -0.1)]), delta(0, 'llo', [lp(1, -0.2)]), end(0, 'length')];
    const meta = completionMeta({ echoText: ['P:'], logprobs: 1 });
    const out = ssePayloads(completionSse(meta), list);
    const offsets = out
      .slice(0, -1)
      .flatMap((f) => (JSON.parse(f) as { choices: { logprobs: { text_offset: number[] } }[] }).choices[0].logprobs.text_offset);
    expect(offsets).toEqual([2, 4]);
    const body = await collectCompletion(events(list), meta);
    expect((body.choices as { logprobs: { text_offset: number[] } }[])[0].logprobs.text_offset).toEqual([2, 4]);
  });
});

describe('logprob shapes', () => {
  it('chat: sampled first, ranked candidates without the sampled id, cut to k', () => {
    const p = lp(1, -0.2, [0, -0.1], [1, -0.2], [2, -0.9]);
    const [e] = chatLogprobs(tok, [p], 2);
    expect(e.token).toBe('llo');
    expect(e.top_logprobs.map((t) => t.token)).toEqual(['llo', 'He']);
    expect(chatLogprobs(tok, [p], 0)[0].top_logprobs).toEqual([]);
    expect(chatLogprobs(tok, [p], 10)[0].top_logprobs.map((t) => t.token)).toEqual(['llo', 'He', ' world']);
  });

  it('chat: a partial-UTF-8 token shows U+FFFD with its UTF-8 bytes; specials are shown', () => {
    const [bad, special] = chatLogprobs(tok, [lp(6, -1), lp(9, -1)], 1);
    expect(bad.bytes).toEqual([0xef, 0xbf, 0xbd]);
    expect(special.token).toBe('<eos>');
  });

  it('completions: legacy shape with offsets from the start offset, top map keyed by text', () => {
    expect(completionLogprobs(tok, [lp(0, -0.1, [0, -0.1], [7, -3]), lp(2, -0.3)], 2, 10)).toEqual({
      tokens: ['He', ' world'],
      token_logprobs: [-0.1, -0.3],
      top_logprobs: [{ He: -0.1, x: -3 }, { ' world': -0.3 }],
      text_offset: [10, 12],
    });
  });
});

describe('UsageTally', () => {
  it('max prompt per group, summed over groups; cached only when asked and > 0', () => {
    const u = new UsageTally();
    u.add(0, 5, 2, 0);
    u.add(0, 6, 3, 4);
    u.add(1, 7, 1, 0);
    expect(u.toJSON(false)).toEqual({ prompt_tokens: 13, completion_tokens: 6, total_tokens: 19 });
    expect(u.toJSON(true)).toEqual({ prompt_tokens: 13, completion_tokens: 6, total_tokens: 19, prompt_tokens_details: { cached_tokens: 4 } });
  });
});
