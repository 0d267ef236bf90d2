/**
 * A dying TokenSpeed engine must never leave a client hanging: the ENGINE_CORE_DEAD sentinel, a
 * kill -9 (no sentinel; the gateway sees the peer disconnect) and a silent stall (only the silence
 * watchdog can tell) each fail in-flight requests promptly, and a restarted engine is picked up
 * again by the health probe.
 */
import OpenAI, { type APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForOk } from './support/proc.js';
import { startTsRig, TS_TEXT, type TsRig } from './support/tokenspeed-rig.js';

let rig: TsRig;
const SLOW = ['--mock-token-delay-ms', '10'];

beforeAll(async () => {
  rig = await startTsRig({
    engineArgs: [...SLOW, '--mock-fault', 'dead', '--mock-fault-on-request', 'boom'],
    gatewayArgs: ['--health-check-interval-secs', '1', '--zmq-silence-timeout-secs', '1'],
  });
});
afterAll(async () => {
  await rig?.stop();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const LONG = { messages: user('Hi'), max_tokens: 3000, ignore_eos: true } as const;

/** A long stream that has produced its first chunk; `done` settles with the error it ended with. */
async function longStream(): Promise<{ done: Promise<{ error: Error | null; chunks: number; ms: number }>; since: () => number }> {
  const stream = await rig.openai.chat.completions.create({ model: rig.model, stream: true, ...LONG } as OpenAI.ChatCompletionCreateParamsStreaming);
  const it = stream[Symbol.asyncIterator]();
  const first = await it.next();
  expect(first.done).toBe(false);
  let t0 = 0;
  const done = (async () => {
    let chunks = 1;
    try {
      for (;;) {
        const r: IteratorResult<ChatCompletionChunk> = await it.next();
        if (r.done) return { error: null, chunks, ms: performance.now() - t0 };
        chunks++;
      }
    } catch (err) {
      return { error: err as Error, chunks, ms: performance.now() - t0 };
    }
  })();
  return { done, since: () => (t0 = performance.now()) };
}

async function ready(): Promise<void> {
  await waitForOk('gateway ready again', `${rig.gatewayURL}/readiness`, 90_000, {
    detail: () => `${rig.gateway.output()}\n${rig.engine.output()}`,
  });
}

describe('TokenSpeed engine death', () => {
  it('ENGINE_CORE_DEAD fails every in-flight request at once (stream and non-stream)', async () => {
    const s = await longStream();
    s.since();
    const t0 = performance.now();
    const boom = await rig.openai.chat.completions
      .create({ model: rig.model, messages: user('Hi'), rid: 'boom' } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .then(() => null, (e: unknown) => e as APIError);
    expect(boom?.status).toBe(500);
    expect(boom?.message).toContain('engine core reported fatal failure');
    const res = await s.done;
    expect(res.error?.message ?? '').toContain('engine core reported fatal failure');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(rig.gateway.output()).toContain('received ENGINE_CORE_DEAD sentinel from engine');
    expect((await rig.engine.exited).code).toBe(1);
  });

  it('kill -9 (no sentinel) fails the in-flight stream promptly via the peer disconnect', async () => {
    rig.restartEngine(SLOW);
    await ready();
    const s = await longStream();
    s.since();
    rig.engine.child.kill('SIGKILL');
    const res = await s.done;
    expect(res.error?.message ?? '').toMatch(/engine disconnected: an engine closed its (input|output) connection/);
    console.log(`[measure] tokenspeed kill -9 → stream error: ${res.ms.toFixed(0)} ms`);
    expect(res.ms).toBeLessThan(2000);
    expect(rig.gateway.output()).toMatch(/engine disconnected from the (input|output) socket; treating engine as dead/);
  });

  it('a silent stall (sockets open, no output) is caught by the silence watchdog', async () => {
    rig.restartEngine([...SLOW, '--mock-fault', 'silent', '--mock-fault-after-tokens', '3']);
    await ready();
    const t0 = performance.now();
    const err = await rig.openai.chat.completions
      .create({ model: rig.model, ...LONG } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .then(() => null, (e: unknown) => e as APIError);
    const ms = performance.now() - t0;
    expect(err?.status).toBe(500);
    expect(err?.message).toContain('engine core reported fatal failure');
    expect(ms).toBeGreaterThan(900);
    expect(ms).toBeLessThan(4000);
    expect(rig.gateway.output()).toContain('no engine output for 1s with in-flight requests; treating engine as dead');
  });

  it('a restarted engine serves again', async () => {
    await rig.engine.stop(1000);
    rig.restartEngine([]);
    await ready();
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: user('Hi') });
    expect(r.choices[0].message.content).toBe(TS_TEXT);
  });
});
