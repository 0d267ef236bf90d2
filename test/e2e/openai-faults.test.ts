/**
 * An engine that dies mid-generation (mock `--mock-fault dead` after 3 tokens: ENGINE_CORE_DEAD,
 * exit 1). A stream that already started keeps HTTP 200 and ends with an SSE error frame and
 * [DONE]; a non-streaming request gets 500 worker_stream_failed. Either way nothing stays in flight.
 */
import OpenAI, { type APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, startRig } from './support/rig.js';

const FAULT = ['--mock-fault', 'dead', '--mock-fault-after-tokens', '3', '--mock-token-delay-ms', '10'];
let streamRig: Rig;
let jsonRig: Rig;
beforeAll(async () => {
  // The engine dies for good, so each case gets its own pair; they start in parallel.
  [streamRig, jsonRig] = await Promise.all([startRig({ engineArgs: FAULT }), startRig({ engineArgs: FAULT })]);
});
afterAll(async () => {
  await Promise.all([streamRig?.stop(), jsonRig?.stop()]);
});

/** The worker's in-flight count once it settles at 0 (or whatever it is after 3 s). */
async function workerLoad(rig: Rig): Promise<number> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const { workers } = (await (await fetch(`${rig.gatewayURL}/workers`)).json()) as { workers: { load: number }[] };
    if (workers[0].load === 0 || Date.now() > deadline) return workers[0].load;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('engine death mid-request', () => {
  it('stream: text so far, then an error the client raises; the wire ends with an error frame and [DONE]', async () => {
    const stream = await streamRig.openai.chat.completions.create({
      model: streamRig.model,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    const err = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('Stream error: engine core reported fatal failure');
    expect('Hello! This is a scripted'.startsWith(text)).toBe(true);
    expect(await workerLoad(streamRig)).toBe(0);
  });

  it('non-stream: 500 worker_stream_failed with the engine message', async () => {
    const err = await jsonRig.openai.chat.completions
      .create({ model: jsonRig.model, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    const e = err as APIError;
    expect(e.headers?.get('x-smg-error-code')).toBe('worker_stream_failed');
    expect(e.error).toMatchObject({ type: 'server_error', code: 'worker_stream_failed' });
    expect(e.message).toContain('stream failed: engine core reported fatal failure');
    expect(await workerLoad(jsonRig)).toBe(0);
  });

  it('once the worker is down, new requests are refused at once, not hung', async () => {
    const t0 = Date.now();
    const err = await jsonRig.openai.chat.completions
      .create({ model: jsonRig.model, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect([404, 500, 503]).toContain((err as APIError).status);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
