/**
 * /v1/completions end to end through the official client: string, token-id and batched prompts,
 * choice indices (prompt × n + i), echo, suffix, stops and the legacy logprobs shape, streamed and not.
 */
import OpenAI from 'openai';
import type { Completion } from 'openai/resources/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_TEXT, encode } from './support/qwen.js';
import { type Rig, engineLines, settle, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.stop();
});

const SCRIPT_TOKENS = encode(MOCK_TEXT).length;
type Params = OpenAI.CompletionCreateParamsNonStreaming;

async function streamed(params: Omit<Params, 'model'> & Record<string, unknown>) {
  const stream = await rig.openai.completions.create({ model: rig.model, ...params, stream: true } as OpenAI.CompletionCreateParamsStreaming);
  const chunks: Completion[] = [];
  for await (const c of stream) chunks.push(c);
  const textOf = (i: number) => chunks.flatMap((c) => c.choices.filter((ch) => ch.index === i).map((ch) => ch.text)).join('');
  const finishes = chunks.flatMap((c) => c.choices.filter((ch) => ch.finish_reason !== null));
  return { chunks, textOf, finishes };
}

describe('completions', () => {
  it('string prompt: scripted text, EOS finish, usage from the raw prompt tokens (no BOS)', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: 'Once upon a time' });
    expect(r.object).toBe('text_completion');
    expect(r.model).toBe(rig.model);
    expect(r.choices).toHaveLength(1);
    expect(r.choices[0]).toMatchObject({ index: 0, text: MOCK_TEXT, finish_reason: 'stop' });
    const p = encode('Once upon a time').length;
    expect(r.usage).toEqual({ prompt_tokens: p, completion_tokens: SCRIPT_TOKENS + 1, total_tokens: p + SCRIPT_TOKENS + 1 });
  });

  it('token-id prompt is sent as given', async () => {
    const ids = encode('Once upon a time');
    const rid = uniqueRid('ids');
    const r = await rig.openai.completions.create({ model: rig.model, prompt: ids, max_tokens: 5, rid } as Params);
    expect(r.choices[0]).toMatchObject({ text: 'Hello! This is a', finish_reason: 'length' });
    expect(r.usage!.prompt_tokens).toBe(ids.length);
    expect(await waitForEngineLine(rig, 'request added', rid)).toContain(`prompt=${ids.length} max_tokens=5`);
  });

  it('batch of 2 prompts: one choice each, indices in prompt order, usage summed', async () => {
    const prompts = ['Hello', 'The quick brown fox'];
    const r = await rig.openai.completions.create({ model: rig.model, prompt: prompts, max_tokens: 3 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(r.choices.map((c) => c.text)).toEqual(['Hello! This', 'Hello! This']);
    const p = encode(prompts[0]).length + encode(prompts[1]).length;
    expect(r.usage).toEqual({ prompt_tokens: p, completion_tokens: 6, total_tokens: p + 6 });

    const s = await streamed({ prompt: prompts, max_tokens: 3 });
    expect([s.textOf(0), s.textOf(1)]).toEqual(['Hello! This', 'Hello! This']);
    expect(s.finishes.map((f) => [f.index, f.finish_reason]).sort()).toEqual([
      [0, 'length'],
      [1, 'length'],
    ]);
  });

  it('batch × n = 2 with a seed: index = prompt × n + i', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: ['A', 'B'], n: 2, seed: 1, max_tokens: 2 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    // The mock rotates by seed: seed 1 starts at "!", seed 2 at " This".
    expect(r.choices.map((c) => c.text)).toEqual(['! This', ' This is', '! This', ' This is']);
  });

  it('echo puts the prompt first (text and token-id prompts), streamed and not', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: 'Say:', echo: true, max_tokens: 2 });
    expect(r.choices[0].text).toBe('Say:Hello!');
    const ids = encode('Say:');
    const r2 = await rig.openai.completions.create({ model: rig.model, prompt: ids, echo: true, max_tokens: 2 });
    expect(r2.choices[0].text).toBe('Say:Hello!');

    const s = await streamed({ prompt: 'Say:', echo: true, max_tokens: 2 });
    expect(s.textOf(0)).toBe('Say:Hello!');
    expect(s.chunks[0].choices[0].text.startsWith('Say:')).toBe(true);
  });

  it('suffix goes last, after the generated text; the finish chunk follows it', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: 'x', suffix: ' [end]', max_tokens: 2 });
    expect(r.choices[0].text).toBe('Hello! [end]');

    const s = await streamed({ prompt: 'x', suffix: ' [end]', echo: true, max_tokens: 2 });
    expect(s.textOf(0)).toBe('xHello! [end]');
    expect(s.finishes).toHaveLength(1);
    expect(s.finishes[0].text).toBe('');
    expect(s.chunks.at(-1)!.choices[0].finish_reason).toBe('length');
  });

  it('stream with include_usage: a usage chunk with no choices ends the stream', async () => {
    const s = await streamed({ prompt: 'Hi', stream_options: { include_usage: true } });
    expect(s.textOf(0)).toBe(MOCK_TEXT);
    expect(s.finishes).toHaveLength(1);
    expect(s.finishes[0].finish_reason).toBe('stop');
    const last = s.chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 1, completion_tokens: SCRIPT_TOKENS + 1, total_tokens: SCRIPT_TOKENS + 2 });
  });

  it('stop strings: multi-token trimmed, kept with no_stop_trim; single-token → engine stop', async () => {
    const a = await rig.openai.completions.create({ model: rig.model, prompt: 'x', stop: ['ted rep'] });
    expect(a.choices[0]).toMatchObject({ text: 'Hello! This is a scrip', finish_reason: 'stop', matched_stop: 'ted rep' });
    const b = await rig.openai.completions.create({ model: rig.model, prompt: 'x', stop: ['ted rep'], no_stop_trim: true } as Params);
    expect(b.choices[0].text).toBe('Hello! This is a scripted rep');
    const c = await rig.openai.completions.create({ model: rig.model, prompt: 'x', stop: [' mock'] });
    expect(c.choices[0]).toMatchObject({ text: 'Hello! This is a scripted reply from the smg', finish_reason: 'stop', matched_stop: ' mock' });
    expect(c.usage!.completion_tokens).toBe(12);
    const s = await streamed({ prompt: 'x', stop: ['ted rep'] });
    expect(s.textOf(0)).toBe('Hello! This is a scrip');
    expect(s.finishes.map((f) => f.finish_reason)).toEqual(['stop']);
  });

  it('logprobs: the legacy tokens / token_logprobs / top_logprobs / text_offset shape', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: 'x', logprobs: 2, max_tokens: 3 });
    const lp = r.choices[0].logprobs!;
    expect(lp.tokens).toEqual(['Hello', '!', ' This']);
    expect(lp.token_logprobs).toHaveLength(3);
    expect(lp.text_offset).toEqual([0, 5, 6]);
    expect(lp.top_logprobs!.every((t) => Object.keys(t).length === 2)).toBe(true);
    expect(lp.top_logprobs![0].Hello).toBe(lp.token_logprobs![0]);
  });

  it('logprobs with echo: offsets count from the end of the prompt, streamed and not', async () => {
    const params = { prompt: 'Say:', echo: true, logprobs: 1, max_tokens: 3 };
    const r = await rig.openai.completions.create({ model: rig.model, ...params });
    expect(r.choices[0].logprobs!.text_offset).toEqual([4, 9, 10]);
    const s = await streamed(params);
    const offsets = s.chunks.flatMap((c) => c.choices.flatMap((ch) => ch.logprobs?.text_offset ?? []));
    expect(offsets).toEqual([4, 9, 10]);
    const tokens = s.chunks.flatMap((c) => c.choices.flatMap((ch) => ch.logprobs?.tokens ?? []));
    expect(tokens).toEqual(r.choices[0].logprobs!.tokens);
  });

  it('a batch of token-id arrays is a batch, not one prompt', async () => {
    const r = await rig.openai.completions.create({ model: rig.model, prompt: [encode('a b'), encode('c')], max_tokens: 1 });
    expect(r.choices.map((c) => [c.index, c.text])).toEqual([
      [0, 'Hello'],
      [1, 'Hello'],
    ]);
    expect(r.usage!.prompt_tokens).toBe(encode('a b').length + encode('c').length);
  });

  it('errors: empty prompt array, out-of-vocab id, unknown model, too long', async () => {
    const rids: string[] = [];
    const fail = (p: Record<string, unknown>) =>
      rig.openai.completions.create({ model: rig.model, prompt: 'x', rid: rids[rids.push(uniqueRid('bad')) - 1], ...p } as Params).then(
        () => null,
        (e: unknown) => e,
      );
    expect(await fail({ prompt: [] })).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await fail({ prompt: [999_999_999] })).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await fail({ model: 'nope' })).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await fail({ prompt: Array.from({ length: 5000 }, () => 9707) })).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await fail({ max_tokens: 4096 })).toBeInstanceOf(OpenAI.BadRequestError);
    await settle();
    expect(rids.flatMap((rid) => engineLines(rig, 'request added', rid))).toEqual([]);
  });
});
