/**
 * generate() against an in-memory engine client: per-choice decoding, abort on a local stop,
 * fan-out failure handling, client disconnect, and the engine finish → event mapping.
 */
import { describe, expect, it } from 'vitest';
import { EngineError, type EngineChunk, type EngineClientApi, type RequestStream } from '../../src/engine/client-types.js';
import type { EngineRequest, SamplingSpec } from '../../src/engine/types.js';
import { EngineRequestStream } from '../../src/engine/request-stream.js';
import type { Decoder } from '../../src/pipeline/detokenizer.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import type { ChoiceSpec } from '../../src/pipeline/fan-out.js';
import { type DecodeRules, generate } from '../../src/pipeline/generate.js';

/** id → text; 9 is EOS (special: empty when skipped). */
const VOCAB = ['Hel', 'lo', ' wor', 'ld', '!', '\n', 'Us', 'er', ':', '<eos>'];
const EOS = 9;
const tok: Decoder = { decode: (ids, skip) => ids.map((i) => (skip && i === EOS ? '' : VOCAB[i])).join('') };

interface FakeRequest {
  req: EngineRequest;
  chunks: EngineRequestStream;
}

/** Requests are fed by the test through `emit`; abort ends a request's stream locally, as the real client does. */
class FakeClient implements EngineClientApi {
  readonly url = 'ipc:///fake';
  readonly runtime = 'vllm' as const;
  readonly registrations = [];
  readonly alive = true;
  readonly maxModelLen = 100;
  readonly requests = new Map<string, FakeRequest>();
  readonly aborted: string[] = [];
  failSubmitAt = -1;

  submit(req: EngineRequest): RequestStream {
    if (this.requests.size === this.failSubmitAt) throw new EngineError('dead', 'engine core reported fatal failure');
    const chunks = new EngineRequestStream(req.requestId, 0, (id) => this.abort(id));
    this.requests.set(req.requestId, { req, chunks });
    return chunks;
  }

  abort(requestId: string): void {
    this.aborted.push(requestId);
    this.requests.get(requestId)?.chunks.finish();
  }

  emit(id: string, ids: number[], finish: EngineChunk['finish'] = null, over: Partial<EngineChunk> = {}): void {
    this.requests.get(id)!.chunks.push({
      newTokenIds: ids,
      finish,
      stopReason: null,
      logprobs: null,
      cachedTokens: null,
      errorMessage: null,
      endsWithStopToken: finish === 'stop' && ids.length > 0,
      ...over,
    });
  }

  fail(id: string, err: EngineError): void {
    this.requests.get(id)!.chunks.fail(err);
  }

  ranks() {
    return [];
  }
  onDead(): void {}
  async close(): Promise<void> {}
}

const sampling = {} as SamplingSpec;
const choice = (index: number, wireId = `r-${index}`): ChoiceSpec => ({ index, wireId, promptTokenIds: [0, 1], sampling });
const rules = (over: Partial<DecodeRules> = {}): DecodeRules => ({
  stopStrings: [],
  tokenStopStrings: new Map(),
  stopTokenIds: [EOS],
  keepStop: false,
  skipSpecialTokens: true,
  ...over,
});

function start(client: FakeClient, choices: ChoiceSpec[], r: DecodeRules = rules(), signal = new AbortController().signal) {
  const events = generate({ client, tokenizer: tok, choices, rules: r, signal, timeoutMs: 10_000, stream: true });
  const seen: GenEvent[] = [];
  const done = (async () => {
    for await (const e of events) seen.push(e);
  })();
  return { seen, done };
}

const texts = (seen: GenEvent[], index = 0) =>
  seen
    .filter((e): e is Extract<GenEvent, { kind: 'text' }> => e.kind === 'text' && e.index === index)
    .map((e) => e.text)
    .join('');
const endOf = (seen: GenEvent[], index = 0) => seen.find((e) => e.kind === 'end' && e.index === index) as Extract<GenEvent, { kind: 'end' }>;

describe('generate', () => {
  it('EOS ends a choice: its text is hidden, it is counted, the prompt length is the fallback usage', async () => {
    const c = new FakeClient();
    const { seen, done } = start(c, [choice(0)]);
    c.emit('r-0', [0, 1]);
    c.emit('r-0', [4, EOS], 'stop');
    await done;
    expect(texts(seen)).toBe('Hello!');
    expect(endOf(seen)).toMatchObject({ finishReason: 'stop', matchedStop: null, completionTokens: 4, promptTokens: 2 });
    expect(c.aborted).toEqual([]);
  });

  it('a stop string completed mid-stream ends the choice and aborts its engine request', async () => {
    const c = new FakeClient();
    const { seen, done } = start(c, [choice(0)], rules({ stopStrings: ['\nUser:'] }));
    c.emit('r-0', [0, 1, 5]);
    c.emit('r-0', [6, 7]);
    c.emit('r-0', [8, 2]);
    await done;
    expect(texts(seen)).toBe('Hello');
    expect(endOf(seen)).toMatchObject({ finishReason: 'stop', matchedStop: '\nUser:', completionTokens: 7 });
    expect(c.aborted).toEqual(['r-0']);
  });

  it('a held partial stop is flushed as text when the engine finishes', async () => {
    const c = new FakeClient();
    const { seen, done } = start(c, [choice(0)], rules({ stopStrings: ['\nUser:'] }));
    c.emit('r-0', [0, 5, 6]);
    c.emit('r-0', [], 'length');
    await done;
    expect(texts(seen)).toBe('Hel\nUs');
    expect(endOf(seen).finishReason).toBe('length');
  });

  it('keepStop shows the stop token text; an engine stop id reports its single-token stop string', async () => {
    const c = new FakeClient();
    const { seen, done } = start(c, [choice(0)], rules({ keepStop: true, stopTokenIds: [EOS, 4], tokenStopStrings: new Map([[4, '!']]) }));
    c.emit('r-0', [0, 1, 4], 'stop', { stopReason: 4 });
    await done;
    expect(texts(seen)).toBe('Hello!');
    expect(endOf(seen)).toMatchObject({ finishReason: 'stop', matchedStop: '!' });
  });

  it('engine "repetition" is reported as stop; a numeric stop_reason passes through', async () => {
    const c = new FakeClient();
    const { seen, done } = start(c, [choice(0), choice(1)]);
    c.emit('r-0', [0], 'repetition');
    c.emit('r-1', [0, 3], 'stop', { stopReason: 3 });
    await done;
    expect(endOf(seen, 0).finishReason).toBe('stop');
    expect(endOf(seen, 1)).toMatchObject({ finishReason: 'stop', matchedStop: 3 });
    expect(texts(seen, 1)).toBe('Hel');
  });

  it('one choice failing fails the whole generation and aborts the others', async () => {
    const c = new FakeClient();
    const { done } = start(c, [choice(0), choice(1)]);
    c.emit('r-1', [0]);
    c.fail('r-0', new EngineError('transport', 'boom'));
    await expect(done).rejects.toThrow('boom');
    expect(c.aborted).toContain('r-1');
  });

  it('an engine error finish is an error, not a finish reason', async () => {
    const c = new FakeClient();
    const { done } = start(c, [choice(0)]);
    c.emit('r-0', [0], 'error');
    await expect(done).rejects.toThrow('engine finished the request with an error');
  });

  it('an engine abort with a message before any token means the engine refused the request', async () => {
    const c = new FakeClient();
    const { done } = start(c, [choice(0)]);
    c.emit('r-0', [], 'abort', { errorMessage: 'top_k must be -1 or in [1, 128)' });
    const err = await done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('invalid');
  });

  it('a submit failure aborts the sub-requests already sent and throws synchronously', () => {
    const c = new FakeClient();
    c.failSubmitAt = 1;
    expect(() => generate({ client: c, tokenizer: tok, choices: [choice(0), choice(1)], rules: rules(), signal: new AbortController().signal, timeoutMs: 1000, stream: false })).toThrow(
      'fatal failure',
    );
    expect(c.aborted).toEqual(['r-0']);
  });

  it('client disconnect aborts every unfinished choice and ends the event stream', async () => {
    const c = new FakeClient();
    const ac = new AbortController();
    const { seen, done } = start(c, [choice(0), choice(1)], rules(), ac.signal);
    c.emit('r-0', [0, EOS], 'stop');
    c.emit('r-1', [0]);
    await new Promise((r) => setTimeout(r, 0));
    ac.abort();
    await done;
    expect(c.aborted).toEqual(['r-1']);
    expect(endOf(seen, 0).finishReason).toBe('stop');
  });

  it('the timeout aborts everything and fails with 504', async () => {
    const c = new FakeClient();
    const events = generate({ client: c, tokenizer: tok, choices: [choice(0)], rules: rules(), signal: new AbortController().signal, timeoutMs: 20, stream: false });
    const err = await (async () => {
      for await (const _ of events) void _;
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 504, code: 'request_timeout' });
    expect(c.aborted).toEqual(['r-0']);
  });
});
