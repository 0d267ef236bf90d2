/**
 * Cancellation against a slow mock (50 ms per token): a client that goes away mid-request and a
 * stop string matched by the gateway both send the engine an ABORT at once, instead of letting it
 * generate to max_tokens.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, engineLinesSince, startRig, waitForEngineLines } from './support/rig.js';

const TOKEN_MS = 50;
let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--mock-token-delay-ms', String(TOKEN_MS)] });
});
afterAll(async () => {
  await rig?.stop();
});

/** The engine request id the mock logged for the one request added since `from`. */
async function addedId(from: number): Promise<string> {
  const [line] = await waitForEngineLines(rig, from, /request added:/);
  return /request added: (\S+)/.exec(line)![1];
}

describe('abort', () => {
  it('client disconnect mid-stream → the engine gets an ABORT promptly', async () => {
    const from = rig.engine.lines.length;
    const ac = new AbortController();
    const stream = await rig.openai.chat.completions.create(
      { model: rig.model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 200, ignore_eos: true, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming,
      { signal: ac.signal },
    );
    let deltas = 0;
    const t0 = Date.now();
    let abortedAt = 0;
    // The client ends the iteration quietly once its signal fires (no throw).
    for await (const c of stream) {
      if (c.choices[0]?.delta.content) deltas++;
      if (deltas === 3 && !abortedAt) {
        abortedAt = Date.now();
        ac.abort();
      }
    }
    expect(abortedAt).toBeGreaterThan(0);
    const id = await addedId(from);
    await waitForEngineLines(rig, from, new RegExp(`abort: .*${id}`), 1, 2000);
    const lag = Date.now() - abortedAt;
    // Well under the 10 s the remaining ~197 tokens would take; a few token periods at most.
    expect(lag).toBeLessThan(1000);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(engineLinesSince(rig, from, /request finished:/)).toEqual([]);
  });

  it('client disconnect on a non-streaming request → ABORT too', async () => {
    const from = rig.engine.lines.length;
    const ac = new AbortController();
    const pending = rig.openai.chat.completions
      .create(
        { model: rig.model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 200, ignore_eos: true } as OpenAI.ChatCompletionCreateParamsNonStreaming,
        { signal: ac.signal },
      )
      .catch((e: unknown) => e);
    const id = await addedId(from);
    await new Promise((r) => setTimeout(r, 3 * TOKEN_MS));
    ac.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    await waitForEngineLines(rig, from, new RegExp(`abort: .*${id}`), 1, 2000);
  });

  it('a gateway-side stop string aborts the engine request instead of letting it run on', async () => {
    const from = rig.engine.lines.length;
    const t0 = Date.now();
    const r = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: [{ role: 'user', content: 'Hi' }],
      stop: ['ted rep'],
      max_tokens: 200,
      ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(r.choices[0].message.content).toBe('Hello! This is a scrip');
    // The stop completes at token 7; the response does not wait for the other 193.
    expect(Date.now() - t0).toBeLessThan(2000);
    const id = await addedId(from);
    await waitForEngineLines(rig, from, new RegExp(`abort: .*${id}`));
    expect(engineLinesSince(rig, from, /request finished:/)).toEqual([]);
  });

  it('n = 2: a disconnect aborts both sub-requests', async () => {
    const from = rig.engine.lines.length;
    const ac = new AbortController();
    const stream = await rig.openai.chat.completions.create(
      { model: rig.model, messages: [{ role: 'user', content: 'Hi' }], n: 2, max_tokens: 200, ignore_eos: true, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming,
      { signal: ac.signal },
    );
    for await (const c of stream) if (c.choices[0]?.delta.content) ac.abort();
    const added = await waitForEngineLines(rig, from, /request added:/, 2);
    const ids = added.map((l) => /request added: (\S+)/.exec(l)![1]);
    expect(ids.map((id) => id.slice(-2)).sort()).toEqual(['-0', '-1']);
    for (const id of ids) await waitForEngineLines(rig, from, new RegExp(`abort: .*${id}`), 1, 2000);
  });

  it('nothing is left in flight: worker load and engine in-flight counts are back to 0', async () => {
    const deadline = Date.now() + 2000;
    let view: { load: number; engines: { in_flight: number }[] } | undefined;
    for (;;) {
      const { workers } = (await (await fetch(`${rig.gatewayURL}/workers`)).json()) as { workers: NonNullable<typeof view>[] };
      view = workers[0];
      if ((view.load === 0 && view.engines.every((e) => e.in_flight === 0)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(view.load).toBe(0);
    expect(view.engines.map((e) => e.in_flight)).toEqual([0]);
  });
});
