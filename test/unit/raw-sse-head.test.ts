import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { HEAD_HOLD_MS } from '../../src/api/head-hold.js';
import { RawSseWriter } from '../../src/api/raw-sse.js';
import type { SseEncoder } from '../../src/api/sse.js';
import type { RawResponse } from '../../src/api/types.js';
import type { GenEvent } from '../../src/pipeline/events.js';

/** Records what reaches the socket: `head`, `flush-head` (the head alone), frames and `end`. */
class RecordingResponse implements RawResponse {
  readonly log: string[] = [];
  status = 0;
  private head = false;
  private ended = false;
  private onHeadFlushed: (() => void) | null = null;
  readonly headFlushed = new Promise<void>((resolve) => (this.onHeadFlushed = resolve));
  get headersSent(): boolean {
    return this.head;
  }
  get closed(): boolean {
    return this.ended;
  }
  get sent(): Response {
    return new Response(null);
  }
  writeHead(status: number): void {
    this.status = status;
    this.head = true;
    this.log.push('head');
  }
  flushHead(): void {
    this.log.push('flush-head');
    this.onHeadFlushed?.();
  }
  readonly idle = true;
  write(chunk: Buffer): boolean {
    this.log.push(chunk.toString());
    return true;
  }
  end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.log.push(chunk.toString());
    this.log.push('end');
    this.ended = true;
  }
  destroy(): void {
    this.log.push('destroy');
    this.ended = true;
  }

  onDrain(): void {}
}

const encoder: SseEncoder = {
  event: () => 'data: token\n\n',
  end: () => 'data: [DONE]\n\n',
  error: (err) => `data: {"error":"${(err as Error).message}"}\n\n`,
};
const TOKEN = { kind: 'text' } as unknown as GenEvent;

function writer(raw: RawResponse, lazyHead = false): RawSseWriter {
  return new RawSseWriter(raw, encoder, {
    headers: {},
    lazyHead,
    errorResponse: () => new Response('{"error":"refused"}', { status: 400 }),
    onClose: () => {},
  });
}

/** Streams that began (head held), got a token and ended; only weak references come back. */
function finishedStreams(n: number): Array<WeakRef<RawSseWriter>> {
  const refs: Array<WeakRef<RawSseWriter>> = [];
  for (let i = 0; i < n; i++) {
    const w = writer(new RecordingResponse());
    w.begin();
    w.push(TOKEN);
    w.end();
    refs.push(new WeakRef(w));
  }
  return refs;
}

describe('RawSseWriter: the 200 waits briefly for the first frames', () => {
  it('sends a short answer as head, frames and end with no write of the head alone', () => {
    const raw = new RecordingResponse();
    const w = writer(raw);
    w.begin();
    expect(raw.log).toEqual([]);
    w.push(TOKEN);
    w.end();
    // One write: the token's frame and the last frame leave together with the end.
    expect(raw.log).toEqual(['head', 'data: token\n\ndata: [DONE]\n\n', 'end']);
  });

  it('sends the head alone once the hold is over and no event came', async () => {
    const raw = new RecordingResponse();
    const w = writer(raw);
    const start = performance.now();
    w.begin();
    await raw.headFlushed;
    expect(performance.now() - start).toBeGreaterThanOrEqual(HEAD_HOLD_MS - 2);
    expect(raw.log).toEqual(['head', 'flush-head']);
    w.push(TOKEN);
    // Written when the flush scheduler comes round, at the end of this turn.
    expect(raw.log.slice(2)).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(raw.log.slice(2)).toEqual(['data: token\n\n']);
  });

  it('answers a failure during the hold with the committed 200 and an error frame', () => {
    const raw = new RecordingResponse();
    const w = writer(raw);
    w.begin();
    w.fail(new Error('engine died'));
    expect(raw.status).toBe(200);
    expect(raw.log).toEqual(['head', 'data: {"error":"engine died"}\n\n', 'end']);
  });

  it('still answers an early failure with its own status when the head waits for the first event', async () => {
    const raw = new RecordingResponse();
    const w = writer(raw, true);
    w.begin();
    w.fail(new Error('refused'));
    await new Promise((r) => setTimeout(r, 0));
    expect(raw.status).toBe(400);
    expect(raw.log).toEqual(['head', '{"error":"refused"}', 'end']);
  });

  it('does not keep a finished stream reachable for the rest of its hold', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // The hold's timer cannot fire during the check (a busy box could otherwise end the hold and
    // let the queue drop its entries, which would pass without the fix).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const refs = finishedStreams(8);
      await new Promise((r) => setImmediate(r));
      gc();
      expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    } finally {
      vi.runAllTimers();
      vi.useRealTimers();
    }
  });
});
