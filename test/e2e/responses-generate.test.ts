/**
 * /v1/responses with the official openai client (`responses.create`, `responses.stream`) and
 * SGLang-style /generate with fetch, against `smg launch` + a mock engine of each dialect with the
 * Qwen3 tokenizer and template. The mock answers per prompt (`--mock-replies`), so each flow
 * checks text the gateway really decoded from token ids.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRig, BACKENDS, startAnyRig } from './support/any-rig.js';
import { encode } from './support/qwen.js';

const REPLY_PLAIN = 'The capital of France is Paris.';
const REPLY_AFTER_TOOL = 'It is 18 degrees in Paris.';

describe.each(BACKENDS)('Responses and /generate over %s (e2e)', (backend) => {
  let rig: AnyRig;
  beforeAll(async () => {
    rig = await startAnyRig(backend, {
      replies: [
        // The tool result reaches the engine inside Qwen3's <tool_response> block.
        { when: '<tool_response>\n18C\n</tool_response>', reply: REPLY_AFTER_TOOL },
        { when: 'capital of France', reply: REPLY_PLAIN },
      ],
    });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('responses.create: a message item with the text, usage, completed', async () => {
    const r = await rig.openai.responses.create({ model: rig.model, input: 'What is the capital of France?', instructions: 'Answer briefly.' });
    expect(r.object).toBe('response');
    expect(r.id).toMatch(/^resp_/);
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe(REPLY_PLAIN);
    expect(r.output).toHaveLength(1);
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(r.usage?.output_tokens).toBe(encode(REPLY_PLAIN).length + 1);
    expect(r.usage?.total_tokens).toBe((r.usage?.input_tokens ?? 0) + (r.usage?.output_tokens ?? 0));
  });

  it('responses.stream: deltas accumulate to the same text; the event sequence is complete', async () => {
    const stream = rig.openai.responses.stream({ model: rig.model, input: 'Name the capital of France.' });
    const types: string[] = [];
    let deltas = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') deltas += ev.delta;
    }
    const final = await stream.finalResponse();
    expect(deltas).toBe(REPLY_PLAIN);
    expect(final.output_text).toBe(REPLY_PLAIN);
    expect(types[0]).toBe('response.created');
    expect(types[1]).toBe('response.in_progress');
    expect(types.at(-1)).toBe('response.completed');
    for (const t of ['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
      expect(types).toContain(t);
    }
  });

  it('a reply cut off by max_output_tokens is incomplete (reason max_output_tokens), as JSON and as a stream', async () => {
    const input = 'What is the capital of France?';
    const r = await rig.openai.responses.create({ model: rig.model, input, max_output_tokens: 3 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.usage?.output_tokens).toBe(3);
    expect(r.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(REPLY_PLAIN.startsWith(r.output_text)).toBe(true);

    const stream = rig.openai.responses.stream({ model: rig.model, input, max_output_tokens: 3 });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    const final = await stream.finalResponse();
    expect(types.at(-1)).toBe('response.incomplete');
    expect(types).not.toContain('response.completed');
    expect(final.status).toBe('incomplete');
    expect(final.output_text).toBe(r.output_text);
  });

  it('a function_call + function_call_output round trip is templated into the prompt', async () => {
    const r = await rig.openai.responses.create({
      model: rig.model,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18C' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
    });
    expect(r.output_text).toBe(REPLY_AFTER_TOOL);
  });

  it('an unknown previous_response_id is a 400 in OpenAI\'s words', async () => {
    const err = await rig.openai.responses.create({ model: rig.model, input: 'hi', previous_response_id: 'resp_x' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("Previous response with id 'resp_x' not found.");
  });

  it('/generate with text: SGLang array shape, stop-decoded text', async () => {
    const res = await fetch(`${rig.gatewayURL}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Q: capital of France?\nA:', sampling_params: { max_new_tokens: 64, stop: [' is'] } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ text: string; output_ids: number[]; meta_info: Record<string, unknown> }>;
    expect(body).toHaveLength(1);
    expect(body[0].text).toBe('The capital of France');
    expect(body[0].meta_info.finish_reason).toEqual({ type: 'stop', matched: ' is' });
    expect(body[0].meta_info.weight_version).toBe('default');
    expect(body[0].output_ids.length).toBeGreaterThan(0);
    expect(typeof body[0].meta_info.e2e_latency).toBe('number');
  });

  it('/generate streaming applies stop strings too, then [DONE]', async () => {
    const res = await fetch(`${rig.gatewayURL}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_ids: encode('capital of France'), stream: true, sampling_params: { max_new_tokens: 64, stop: ['France'] } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await res.text()).split('\n\n').filter(Boolean).map((f) => f.replace(/^data: /, ''));
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f) as { text: string; meta_info: { finish_reason: unknown } });
    const last = chunks.at(-1)!;
    expect(last.text).toBe('The capital of ');
    expect(last.meta_info.finish_reason).toEqual({ type: 'stop', matched: 'France' });
    // Cumulative text: every chunk extends the previous one.
    for (let i = 1; i < chunks.length; i++) expect(chunks[i].text.startsWith(chunks[i - 1].text)).toBe(true);
  });

  it('/generate incremental_streaming_output: each chunk carries only its step, they join to the non-streamed text', async () => {
    const ask = async (extra: Record<string, unknown>) =>
      fetch(`${rig.gatewayURL}/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Q: capital of France?\nA:', sampling_params: { max_new_tokens: 64 }, ...extra }),
      });
    const whole = ((await (await ask({})).json()) as Array<{ text: string; output_ids: number[] }>)[0];
    const res = await ask({ stream: true, incremental_streaming_output: true });
    const frames = (await res.text()).split('\n\n').filter(Boolean).map((f) => f.replace(/^data: /, ''));
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f) as { text: string; output_ids: number[]; meta_info: { finish_reason: unknown } });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.text).join('')).toBe(whole.text);
    expect(chunks.flatMap((c) => c.output_ids)).toEqual(whole.output_ids);
    // No chunk repeats text an earlier one carried (the cumulative default would).
    const texts = chunks.map((c) => c.text).filter((t) => t !== '');
    for (let i = 1; i < texts.length; i++) expect(texts[i].startsWith(texts[i - 1])).toBe(false);
    expect(chunks.at(-1)!.meta_info.finish_reason).not.toBeNull();
    // The per-request field also turns it off over a gateway whose default may be on.
    const cumulative = await ask({ stream: true, incremental_streaming_output: false });
    const last = JSON.parse((await cumulative.text()).split('\n\n').filter(Boolean).at(-2)!.replace(/^data: /, '')) as { text: string };
    expect(last.text).toBe(whole.text);
  });

  it('/generate refuses a batch of input_ids with the spec text', async () => {
    const res = await fetch(`${rig.gatewayURL}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_ids: [[1, 2], [3]] }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('Batch input_ids are not supported over gRPC generate yet');
  });
});
