/**
 * Cancellation against a slow mock (50 ms per token): a client that goes away mid-request and a
 * stop string matched by the gateway both send the engine an ABORT at once, instead of letting it
 * generate to max_tokens; afterwards nothing is left counted as in flight.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, engineLines, settle, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

const TOKEN_MS = 50;
let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--mock-token-delay-ms', String(TOKEN_MS)] });
});
afterAll(async () => {
  await rig?.stop();
});

/** 200 tokens at 50 ms would take 10 s: anything that finishes fast was cut short. */
function long<T = OpenAI.ChatCompletionCreateParamsNonStreaming>(rid: string, extra: Record<string, unknown> = {}): T {
  return { model: rig.model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 200, ignore_eos: true, rid, ...extra } as T;
}

describe('abort', () => {
  it('client disconnect mid-stream → the engine gets an ABORT promptly', async () => {
    const rid = uniqueRid('gone');
    const ac = new AbortController();
    const stream = await rig.openai.chat.completions.create(long<OpenAI.ChatCompletionCreateParamsStreaming>(rid, { stream: true }), {
      signal: ac.signal,
    });
    let deltas = 0;
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
    await waitForEngineLine(rig, 'abort', rid, 30_000);
    const lag = Date.now() - abortedAt;
    console.log(`[measure] client abort → engine ABORT logged: ${lag} ms`);
    // A few token periods at most (loaded CI boxes included), far from the 10 s left to run.
    expect(lag).toBeLessThan(1500);
    expect(engineLines(rig, 'request finished', rid)).toEqual([]);
  });

  it('client disconnect on a non-streaming request → ABORT too', async () => {
    const rid = uniqueRid('gone-json');
    const ac = new AbortController();
    const pending = rig.openai.chat.completions
      .create(long(rid), { signal: ac.signal })
      .catch((e: unknown) => e);
    await waitForEngineLine(rig, 'request added', rid);
    await new Promise((r) => setTimeout(r, 3 * TOKEN_MS));
    ac.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    await waitForEngineLine(rig, 'abort', rid, 30_000);
    expect(engineLines(rig, 'request finished', rid)).toEqual([]);
  });

  it('a gateway-side stop string aborts the engine request instead of letting it run on', async () => {
    const rid = uniqueRid('stop');
    const t0 = Date.now();
    const r = await rig.openai.chat.completions.create(long(rid, { stop: ['ted rep'] }));
    expect(r.choices[0].message.content).toBe('Hello! This is a scrip');
    expect(r.choices[0].finish_reason).toBe('stop');
    // The stop completes at token 7; the response does not wait for the other 193.
    expect(Date.now() - t0).toBeLessThan(3000);
    await waitForEngineLine(rig, 'abort', rid);
    await settle();
    expect(engineLines(rig, 'request finished', rid)).toEqual([]);
  });

  it('n = 2: a disconnect aborts both sub-requests', async () => {
    const rid = uniqueRid('gone-n2');
    const ac = new AbortController();
    const stream = await rig.openai.chat.completions.create(long<OpenAI.ChatCompletionCreateParamsStreaming>(rid, { n: 2, stream: true }), {
      signal: ac.signal,
    });
    for await (const c of stream) if (c.choices[0]?.delta.content) ac.abort();
    for (const sub of [`${rid}-0`, `${rid}-1`]) {
      await waitForEngineLine(rig, 'request added', sub);
      await waitForEngineLine(rig, 'abort', sub, 30_000);
    }
  });

  it('nothing is left in flight: worker load and engine in-flight counts are back to 0', async () => {
    const deadline = Date.now() + 3000;
    let view: { load: number; engines: { in_flight: number }[] };
    for (;;) {
      const { workers } = (await (await fetch(`${rig.gatewayURL}/workers`)).json()) as { workers: (typeof view)[] };
      view = workers[0];
      if ((view.load === 0 && view.engines.every((e) => e.in_flight === 0)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(view.load).toBe(0);
    expect(view.engines.map((e) => e.in_flight)).toEqual([0]);
    // Disconnects are routine: no error logged, no stray rejection from a half-written stream.
    expect(rig.gatewayOutput()).not.toMatch(/ ERROR |Unhandled|TypeError|ERR_/);
  });
});
