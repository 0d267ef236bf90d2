/**
 * One request's exception stays that request's: the loops every request shares (the engine output
 * reader, the SSE flush scheduler) catch what one request's own handling throws, end that request
 * and go on with the others. The exception is the real one (JSON.stringify of a value nested
 * 10,000 deep overflows the stack), thrown where an encoder or a sink would throw it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineChunk } from '../../src/engine/client-types.js';
import { connectEngineClient } from '../../src/engine/engine-client.js';
import { type Flushable, scheduleFlush } from '../../src/api/flush-scheduler.js';
import { RawSseWriter } from '../../src/api/raw-sse.js';
import type { SseEncoder } from '../../src/api/sse.js';
import type { RawResponse } from '../../src/api/types.js';
import { createLogger } from '../../src/util/logger.js';
import { batch, FakeEngine, fakeDialect, sampleRequest, testWorker } from './engine-test-kit.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What a request's encoder does with a hostile echo: a real stack overflow. */
function overflow(): never {
  let v: unknown = 1;
  for (let i = 0; i < 10_000; i++) v = { a: v };
  JSON.stringify(v);
  throw new Error('JSON.stringify did not overflow');
}

describe('engine output reader: a listener that throws', () => {
  it('fails that request (aborted on the engine, logged); the request beside it completes', async () => {
    const w = await testWorker();
    cleanups.push(w.cleanup);
    const lines: string[] = [];
    const logger = createLogger({ destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }), level: 'debug' });
    const pending = connectEngineClient({ url: w.url, engineCount: 1, dialect: fakeDialect, handshakeAddress: w.handshake, stageTimeoutMs: 5000, logger });
    const engine = new FakeEngine(0, w.handshake, {});
    cleanups.push(() => engine.close());
    await engine.start();
    const client = await pending;
    cleanups.push(() => client.close());

    const bad = client.submit(sampleRequest('bad'));
    const good = client.submit(sampleRequest('good'));
    bad.listen({ chunk: () => overflow(), end: () => {}, fail: () => {} });
    const seen: EngineChunk[] = [];
    const goodDone = new Promise<void>((resolve, reject) => good.listen({ chunk: (c) => seen.push(c), end: resolve, fail: reject }));
    await engine.waitForInput(2);

    await engine.emit(batch(0, [['bad', [5], null], ['good', [6], null]]));
    await engine.emit(batch(0, [['good', [7], 'stop']]));
    await goodDone;
    expect(seen.map((c) => c.newTokenIds)).toEqual([[6], [7]]);
    expect(client.alive).toBe(true);
    // The engine was told to abort the failed request.
    await engine.waitForInput(3);
    expect(engine.decodedInputs()[2]).toEqual([1, ['bad']]);
    expect(lines.join('')).toMatch(/request handling threw in the engine output reader.*requestId.*bad|requestId.*bad.*request handling threw/s);
    expect(lines.join('')).toMatch(/Maximum call stack size exceeded/);
  });
});

describe('flush scheduler: a stream whose flush throws', () => {
  it('is told (flushFailed) and the streams queued after it are still written', async () => {
    const log: string[] = [];
    const s = (name: string, fail = false): Flushable => ({
      flush: () => (fail ? overflow() : log.push(name)),
      flushFailed: (err) => log.push(`${name} failed: ${(err as Error).name}`),
    });
    scheduleFlush(s('a'));
    scheduleFlush(s('b', true));
    scheduleFlush(s('c'));
    await nextTurn();
    expect(log).toEqual(['a', 'b failed: RangeError', 'c']);
  });
});

class Recording implements RawResponse {
  readonly out: string[] = [];
  status = 0;
  private ended = false;
  destroyed = false;
  headersSent = false;
  get closed(): boolean {
    return this.ended || this.destroyed;
  }
  readonly idle = true;
  get sent(): Response {
    return new Response(null);
  }
  writeHead(status: number): void {
    this.status = status;
    this.headersSent = true;
  }
  flushHead(): void {}
  write(chunk: Buffer): boolean {
    this.out.push(chunk.toString());
    return true;
  }
  end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.out.push(chunk.toString());
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  onDrain(): void {}
}

function writer(raw: Recording, enc: SseEncoder) {
  const broken: unknown[] = [];
  let closes = 0;
  const w = new RawSseWriter(raw, enc, {
    headers: {},
    lazyHead: false,
    errorResponse: () => Response.json({ error: { message: 'failed' } }, { status: 500 }),
    onClose: () => closes++,
    onBroken: (err) => broken.push(err),
  });
  return { w, broken, closes: () => closes };
}

describe('raw SSE writer: an encoder that throws', () => {
  it('mid-stream: ends with the encoder’s error frame, reports once, ignores later events, never throws', async () => {
    const raw = new Recording();
    const enc: SseEncoder = {
      event: (ev) => (ev.kind === 'text' && ev.text === 'boom' ? overflow() : `data: ${ev.kind === 'text' ? ev.text : ''}\n\n`),
      end: () => 'data: [DONE]\n\n',
      error: () => 'data: {"error":{"message":"stream failed"}}\n\n',
    };
    const { w, broken, closes } = writer(raw, enc);
    w.begin();
    w.push({ kind: 'text', index: 0, text: 'ok', logprobs: null });
    expect(() => w.push({ kind: 'text', index: 0, text: 'boom', logprobs: null })).not.toThrow();
    w.push({ kind: 'text', index: 0, text: 'late', logprobs: null });
    w.end();
    await nextTurn();
    expect(raw.status).toBe(200);
    expect(raw.out.join('')).toBe('data: {"error":{"message":"stream failed"}}\n\n');
    expect(raw.closed).toBe(true);
    expect(broken).toHaveLength(1);
    expect((broken[0] as Error).name).toBe('RangeError');
    expect(closes()).toBe(1);
  });

  it('when the error frame throws too (the Responses echo case): the connection is cut', async () => {
    const raw = new Recording();
    const enc: SseEncoder = { start: () => '', event: () => overflow(), end: () => '', error: () => overflow() };
    const { w, broken } = writer(raw, enc);
    w.begin();
    expect(() => w.push({ kind: 'text', index: 0, text: 'x', logprobs: null })).not.toThrow();
    expect(() => w.fail(new Error('later'))).not.toThrow();
    expect(raw.destroyed).toBe(true);
    expect(broken).toHaveLength(1);
  });

  it('before the head: the protocol’s error status', async () => {
    const raw = new Recording();
    const enc: SseEncoder = { event: () => '', end: () => '', error: () => '' };
    const { w, broken } = writer(raw, { ...enc, start: () => overflow() });
    // lazyHead false: begin() holds the head; the first event writes it with start().
    w.begin();
    w.push({ kind: 'text', index: 0, text: 'x', logprobs: null });
    await nextTurn();
    expect(broken).toHaveLength(1);
    expect(raw.closed).toBe(true);
  });
});
