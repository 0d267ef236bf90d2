/**
 * What TokenSpeed cannot do, seen through the OpenAI API: an engine started with its defaults
 * (no --enable-output-logprobs, --grammar-backend none) aborts such requests at admission with a
 * message-less terminal row; the client must get a clear 400, never an empty 200. Also: a client
 * disconnect ends the request locally (TokenSpeed never answers ABORT), and client rids are not
 * reused on the wire.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/proc.js';
import { addedRequests, engineLines, rejection, startTsRig, TS_TEXT, waitForEngineLine, type TsRig } from './support/tokenspeed-rig.js';

let rig: TsRig;
beforeAll(async () => {
  rig = await startTsRig({ engineArgs: ['--mock-token-delay-ms', '5'] });
});
afterAll(async () => {
  await rig?.stop();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const ADMISSION = 'TokenSpeed rejected the request at admission';

/** Raw SSE, to see exactly what a streaming client receives. */
async function rawStream(path: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(`${rig.gatewayURL}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: rig.model, stream: true, ...body }),
  });
  return { status: res.status, text: await res.text() };
}

describe('TokenSpeed: engine-side refusals become client errors', () => {
  it('logprobs without --enable-output-logprobs: 400 with a clear message (chat, completions)', async () => {
    const from = rig.engine.lines.length;
    const err = await rejection(rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), logprobs: true }));
    expect(err.status).toBe(400);
    expect(err.message).toContain(ADMISSION);
    await waitForEngineLine(rig, from, /aborted at admission: .*--enable-output-logprobs/);
    const cerr = await rejection(rig.openai.completions.create({ model: rig.model, prompt: 'x', logprobs: 1 }));
    expect(cerr.status).toBe(400);
    expect(cerr.message).toContain(ADMISSION);
  });

  it('structured output with --grammar-backend none: 400, not an unconstrained answer', async () => {
    const err = await rejection(
      rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi'), response_format: { type: 'json_object' } }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toContain(ADMISSION);
  });

  it('streaming: the refusal is a 400 before any SSE byte', async () => {
    const chat = await rawStream('/v1/chat/completions', { messages: user('Hi'), logprobs: true });
    expect(chat.status).toBe(400);
    expect(chat.text).toContain(ADMISSION);
    const comp = await rawStream('/v1/completions', { prompt: 'x', json_schema: '{"type":"object"}' });
    expect(comp.status).toBe(400);
    expect(comp.text).toContain(ADMISSION);
  });

  it('the engine keeps serving after refusals', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(r.choices[0].message.content).toBe(TS_TEXT);
  });
});

describe('TokenSpeed: aborts and request ids', () => {
  it('client disconnect: the engine sees the ABORT, the gateway finalizes locally, the worker is idle again', async () => {
    const from = rig.engine.lines.length;
    const ctrl = new AbortController();
    const stream = await rig.openai.chat.completions.create(
      { model: rig.model, messages: user('Hi'), stream: true, max_tokens: 2000, ignore_eos: true } as OpenAI.ChatCompletionCreateParamsStreaming,
      { signal: ctrl.signal },
    );
    let chunks = 0;
    try {
      for await (const _ of stream) if (++chunks === 3) ctrl.abort();
    } catch {
      // the client library may surface its own abort as an error
    }
    // Chunks the client had already buffered may still be delivered after abort().
    expect(chunks).toBeGreaterThanOrEqual(3);
    const [req] = addedRequests(rig, from);
    await waitForEngineLine(rig, from, new RegExp(`abort: ${req.rid} \\(1 in flight; no reply\\)`));
    // No terminal row ever comes back; the gateway must not be waiting for one.
    await waitFor('in-flight back to 0', async () => {
      const metrics = await (await fetch(rig.metricsURL)).text();
      const m = /smg_engine_inflight_requests\{[^}]*\} (\d+)/.exec(metrics);
      return m !== null && m[1] === '0' ? true : undefined;
    });
    expect(engineLines(rig, from, new RegExp(`request finished: ${req.rid}`))).toEqual([]);
    const again = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(again.choices[0].message.content).toBe(TS_TEXT);
  });

  it('a client rid is never sent verbatim, so reusing it (even concurrently) cannot hit the engine abort memory', async () => {
    const from = rig.engine.lines.length;
    const body = { model: rig.model, messages: user('Hi'), rid: 'my-rid' } as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const [a, b] = await Promise.all([rig.openai.chat.completions.create(body), rig.openai.chat.completions.create(body)]);
    expect([a.choices[0].message.content, b.choices[0].message.content]).toEqual([TS_TEXT, TS_TEXT]);
    expect(a.id).toBe('my-rid');
    const rids = addedRequests(rig, from).map((x) => x.rid);
    expect(rids).toHaveLength(2);
    expect(new Set(rids).size).toBe(2);
    for (const rid of rids) expect(rid).toMatch(/^my-rid-[0-9a-f-]{36}$/);
  });
});
