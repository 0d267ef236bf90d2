/**
 * Context-length rules against a mock that reports (and enforces) max_model_len 64, in count mode
 * (ids 1000, 1001, … never hit EOS): the default max_tokens fills the context, and prompts or
 * max_tokens that do not fit are refused with 400 before anything is sent.
 */
import OpenAI, { type APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatPrompt, encode } from './support/qwen.js';
import { type Rig, engineLines, settle, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

const MAX_MODEL_LEN = 64;
let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--max-model-len', String(MAX_MODEL_LEN), '--mock-mode', 'count', '--mock-count-base', '1000'] });
});
afterAll(async () => {
  await rig?.stop();
});

describe('context length', () => {
  it('chat without max_tokens: finish "length" at max_model_len − prompt tokens', async () => {
    const rid = uniqueRid('default');
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'Count for me' }], rid } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const prompt = encode(chatPrompt('Count for me')).length;
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.usage).toEqual({ prompt_tokens: prompt, completion_tokens: MAX_MODEL_LEN - prompt, total_tokens: MAX_MODEL_LEN });
    expect(await waitForEngineLine(rig, 'request added', rid)).toContain(`prompt=${prompt} max_tokens=${MAX_MODEL_LEN - prompt}`);
  });

  it('completions stream without max_tokens: the same default', async () => {
    const prompt = encode('one two three');
    const stream = await rig.openai.completions.create({
      model: rig.model,
      prompt: 'one two three',
      stream: true,
      stream_options: { include_usage: true },
    });
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of stream) {
      for (const ch of c.choices) if (ch.finish_reason) finish = ch.finish_reason;
      if (c.usage) usage = c.usage;
    }
    expect(finish).toBe('length');
    expect(usage).toEqual({ prompt_tokens: prompt.length, completion_tokens: MAX_MODEL_LEN - prompt.length, total_tokens: MAX_MODEL_LEN });
  });

  it('explicit max_tokens equal to the room left is allowed; one more is a 400', async () => {
    const prompt = encode('abc').length;
    const ok = await rig.openai.completions.create({ model: rig.model, prompt: 'abc', max_tokens: MAX_MODEL_LEN - prompt });
    expect(ok.usage!.completion_tokens).toBe(MAX_MODEL_LEN - prompt);

    const rid = uniqueRid('toolong');
    const err = await rig.openai.completions
      .create({ model: rig.model, prompt: 'abc', max_tokens: MAX_MODEL_LEN - prompt + 1, rid } as OpenAI.CompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as APIError).message).toContain(`maximum context length is ${MAX_MODEL_LEN} tokens`);
    await settle();
    expect(engineLines(rig, 'request added', rid)).toEqual([]);
  });

  it('a prompt that fills the context is a 400 (vLLM would be sent max_tokens 0) and never reaches the engine', async () => {
    const [rid1, rid2] = [uniqueRid('full'), uniqueRid('full')];
    const ids = Array.from({ length: MAX_MODEL_LEN }, () => 1000);
    const err = await rig.openai.completions
      .create({ model: rig.model, prompt: ids, rid: rid1 } as OpenAI.CompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as APIError).message).toContain(`your request has ${MAX_MODEL_LEN} input tokens`);

    const chatErr = await rig.openai.chat.completions
      .create({ model: rig.model, messages: [{ role: 'user', content: 'word '.repeat(80) }], rid: rid2 } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(chatErr).toBeInstanceOf(OpenAI.BadRequestError);
    await settle();
    expect([...engineLines(rig, 'request added', rid1), ...engineLines(rig, 'request added', rid2)]).toEqual([]);
  });
});
