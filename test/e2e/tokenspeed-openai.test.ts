/**
 * The OpenAI API over TokenSpeed, end to end: the `openai` client → `smg launch --backend
 * tokenspeed` → ZeroMQ → the TokenSpeed mock started as serve would start it (xgrammar, output
 * logprobs on). The engine stops at its own EOS (read from the model dir) and keeps it in
 * output_ids; the gateway must count it and never show it.
 */
import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatPrompt, encode } from './support/qwen.js';
import { addedRequests, engineLines, rejection, startTsRig, TS_TEXT, waitForEngineLine, type TsRig } from './support/tokenspeed-rig.js';

let rig: TsRig;
beforeAll(async () => {
  rig = await startTsRig({ engineArgs: ['--enable-output-logprobs', '--grammar-backend', 'xgrammar'] });
});
afterAll(async () => {
  await rig?.stop();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const SCRIPT = encode(TS_TEXT);

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

const text = (chunks: ChatCompletionChunk[], index = 0) =>
  chunks.flatMap((c) => c.choices.filter((ch) => ch.index === index).map((ch) => ch.delta.content ?? '')).join('');

describe('TokenSpeed: chat and completions', () => {
  it('non-stream chat: the engine stops at its own EOS, which is counted but not shown; no EOS is sent', async () => {
    const from = rig.engine.lines.length;
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(r.choices[0].message.content).toBe(TS_TEXT);
    expect(r.choices[0].finish_reason).toBe('stop');
    const prompt = encode(chatPrompt('Hi')).length;
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: SCRIPT.length + 1 });
    const [req] = addedRequests(rig, from);
    // TokenSpeed knows EOS itself: stop_token_ids stays nil, max_new_tokens explicit, 11-element ADD.
    expect(req.fields).toMatchObject({ stop_token_ids: null, stream: false, return_logprob: false, wire_length: 11, prompt });
    expect(req.fields.max_new_tokens).toBe(4096 - prompt);
  });

  it('streaming chat and completions deliver the same text; usage arrives with include_usage', async () => {
    const chunks = await collect(
      await rig.openai.chat.completions.create({
        model: rig.model, messages: user('Hi'), stream: true, stream_options: { include_usage: true },
      }),
    );
    expect(text(chunks)).toBe(TS_TEXT);
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((f) => f !== null)).toEqual(['stop']);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(SCRIPT.length + 1);

    const c = await rig.openai.completions.create({ model: rig.model, prompt: 'Say hi', max_tokens: 50 });
    expect(c.choices[0].text).toBe(TS_TEXT);
    expect(c.choices[0].finish_reason).toBe('stop');
    const cs = await collect(await rig.openai.completions.create({ model: rig.model, prompt: 'Say hi', stream: true }));
    expect(cs.map((x) => x.choices[0]?.text ?? '').join('')).toBe(TS_TEXT);
  });

  it('max_tokens ends with length; ignore_eos runs through the EOS', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), max_tokens: 3 });
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.usage?.completion_tokens).toBe(3);
    const n = SCRIPT.length + 4;
    const ign = await rig.openai.chat.completions.create({
      model: rig.model, messages: user('Hi'), max_tokens: n, ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(ign.choices[0].finish_reason).toBe('length');
    expect(ign.usage?.completion_tokens).toBe(n);
    expect(ign.choices[0].message.content?.startsWith(TS_TEXT)).toBe(true);
  });

  it('stop strings: multi-token ones are matched by the gateway (which then aborts), single-token ones go to the engine', async () => {
    let from = rig.engine.lines.length;
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), stop: ['All good'] });
    expect(r.choices[0].message.content).toBe('Hello from TokenSpeed. ');
    expect(r.choices[0].finish_reason).toBe('stop');
    // Stop strings are the gateway's to match, so even a non-streaming client gets per-step rows.
    expect(addedRequests(rig, from)[0].fields).toMatchObject({ stop_token_ids: null, stream: true });

    // A long streaming run: the engine is still generating when the gateway matches the stop
    // string, so the gateway's ABORT reaches it (and is never answered).
    from = rig.engine.lines.length;
    const long = await collect(
      await rig.openai.chat.completions.create({
        model: rig.model, messages: user('Hi'), stop: ['All good'], stream: true, max_tokens: 4000, ignore_eos: true,
      } as OpenAI.ChatCompletionCreateParamsStreaming),
    );
    expect(text(long)).toBe('Hello from TokenSpeed. ');
    const [req] = addedRequests(rig, from);
    await waitForEngineLine(rig, from, new RegExp(`abort: ${req.rid} \\(1 in flight; no reply\\)`));
    expect(engineLines(rig, from, new RegExp(`request finished: ${req.rid}`))).toEqual([]);

    from = rig.engine.lines.length;
    const dot = encode('.');
    expect(dot).toHaveLength(1);
    const s = await collect(await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), stop: '.', stream: true }));
    expect(text(s)).toBe('Hello from TokenSpeed');
    expect(addedRequests(rig, from)[0].fields.stop_token_ids).toEqual(dot);
  });

  it('n = 2 fans out to two rids with seed and seed + 1', async () => {
    const from = rig.engine.lines.length;
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), n: 2, seed: 40 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(r.choices.every((c) => c.finish_reason === 'stop' && (c.message.content ?? '').length > 0)).toBe(true);
    const adds = addedRequests(rig, from);
    expect(adds.map((a) => a.rid.slice(-2)).sort()).toEqual(['-0', '-1']);
    expect(adds.map((a) => a.fields.seed).sort()).toEqual([40, 41]);
    expect(new Set(adds.map((a) => a.rid)).size).toBe(2);
  });

  it('structured output reaches the engine in the json_schema slot', async () => {
    let from = rig.engine.lines.length;
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const r = await rig.openai.chat.completions.create({
      model: rig.model, messages: user('Hi'),
      response_format: { type: 'json_schema', json_schema: { name: 'a', schema, strict: true } },
    });
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(JSON.parse(addedRequests(rig, from)[0].fields.json_schema as string)).toEqual(schema);

    from = rig.engine.lines.length;
    await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), response_format: { type: 'json_object' } });
    expect(addedRequests(rig, from)[0].fields.json_schema).toBe('{"type":"object"}');
  });

  it('logprobs: the sampled token only (top_logprobs []); more than one candidate is a 400', async () => {
    const from = rig.engine.lines.length;
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), logprobs: true, max_tokens: 4 });
    expect(addedRequests(rig, from)[0].fields.return_logprob).toBe(true);
    const content = r.choices[0].logprobs?.content ?? [];
    expect(content).toHaveLength(4);
    for (const e of content) {
      expect(e.logprob).toBeLessThan(0);
      expect(e.top_logprobs).toEqual([]);
    }
    expect(content.map((e) => e.token).join('')).toBe(r.choices[0].message.content);

    const err = await rejection(
      rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), logprobs: true, top_logprobs: 2 }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toContain('top_logprobs are not supported over the TokenSpeed ZMQ backend');
    const cerr = await rejection(rig.openai.completions.create({ model: rig.model, prompt: 'x', logprobs: 2 }));
    expect(cerr.status).toBe(400);
    expect(cerr.message).toContain('top_logprobs are not supported over the TokenSpeed ZMQ backend');
  });

  it('top_k beyond the fused-kernel limit is refused before it reaches the engine', async () => {
    const from = rig.engine.lines.length;
    const err = await rejection(
      rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), top_k: 200 } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/top_k/);
    expect(engineLines(rig, from, /request added/)).toEqual([]);
  });
});
