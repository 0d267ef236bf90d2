/**
 * The engine client's rules beyond SMG's, on real zeromq sockets with in-process fake engines:
 * the half-dead probe (a rank holding requests that neither outputs nor answers a UTILITY call)
 * and peer counting (connections that are not engines, or stale engines, leaving is no death).
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import * as zmq from 'zeromq';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineChunk, RequestStream } from '../../src/engine/client-types.js';
import { connectEngineClient, type EngineClient } from '../../src/engine/engine-client.js';
import { ENGINE_INPUT_DISCONNECTED_TEXT, inputUnresponsiveText } from '../../src/engine/error-texts.js';
import type { InputProbeSpec, InputProbeTiming } from '../../src/engine/input-probe.js';
import { deriveAddresses } from '../../src/engine/ipc-path.js';
import { createLogger } from '../../src/util/logger.js';
import { batch, FakeEngine, fakeDialect, sampleRequest, sleep, testWorker } from './engine-test-kit.js';

const UTILITY = 0x03;
/** The fake dialect's UTILITY: type byte as vLLM, call id as JSON. */
const jsonProbe: InputProbeSpec = {
  method: 'get_supported_tasks',
  encode: (callId) => [Buffer.from([UTILITY]), Buffer.from(JSON.stringify({ callId }))],
};
const FAST: InputProbeTiming = { afterMs: 150, timeoutMs: 400 };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Group {
  client: EngineClient;
  engines: FakeEngine[];
  lines: string[];
  url: string;
}

async function connectGroup(indexes: number[], probe: InputProbeSpec | null = jsonProbe, timing = FAST): Promise<Group> {
  const w = await testWorker();
  cleanups.push(w.cleanup);
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const pending = connectEngineClient({
    url: w.url,
    engineCount: indexes.length,
    dialect: fakeDialect,
    handshakeAddress: w.handshake,
    stageTimeoutMs: 5000,
    inputProbe: probe,
    inputProbeTiming: timing,
    logger: createLogger({ destination, level: 'debug' }),
  });
  const engines = indexes.map((i) => new FakeEngine(i, w.handshake));
  cleanups.push(() => engines.forEach((e) => e.close()));
  await Promise.all(engines.map((e) => e.start()));
  const client = await pending;
  cleanups.push(() => client.close());
  return { client, engines, lines, url: w.url };
}

async function collect(stream: RequestStream): Promise<{ chunks: EngineChunk[]; error: unknown }> {
  const chunks: EngineChunk[] = [];
  try {
    for await (const c of stream) chunks.push(c);
    return { chunks, error: null };
  } catch (error) {
    return { chunks, error };
  }
}

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

async function waitForLog(lines: string[], text: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!lines.some((l) => l.includes(text))) {
    if (Date.now() > deadline) throw new Error(`no log line with ${text}:\n${lines.join('')}`);
    await sleep(10);
  }
}

const probesTo = (e: FakeEngine) => e.received.filter((f) => f[0][0] === UTILITY);

/** Answers every probe the engine receives until `stop` says so, like a healthy vLLM engine. */
function answerProbes(e: FakeEngine): { stop(): void } {
  let stopped = false;
  void (async () => {
    let seen = 0;
    while (!stopped) {
      try {
        await e.waitForInput(seen + 1, 100);
      } catch {
        continue;
      }
      for (; seen < e.received.length; seen++) {
        const [type, payload] = e.received[seen];
        if (type[0] !== UTILITY) continue;
        const { callId } = JSON.parse(payload.toString()) as { callId: number };
        const reply = { kind: 'utility', engineIndex: e.index, callId, failure: null, result: ['generate'] };
        await e.emit(Buffer.from(JSON.stringify(reply)));
      }
    }
  })();
  return { stop: () => (stopped = true) };
}

describe('engine client: the half-dead probe', () => {
  it('a rank that holds a request and neither outputs nor answers is dead, with its own text', async () => {
    const g = await connectGroup([0]);
    const deaths: unknown[] = [];
    g.client.onDead((e) => deaths.push(e));
    const t0 = performance.now();
    const { error } = await collect(g.client.submit(sampleRequest('stuck')));
    const waited = performance.now() - t0;
    expect(error).toMatchObject({
      kind: 'dead',
      deathCause: 'input_unresponsive',
      message: 'engine input thread unresponsive: no reply to get_supported_tasks within 0.4s',
    });
    expect((error as Error).message).toBe(inputUnresponsiveText('get_supported_tasks', 400));
    expect(waited).toBeGreaterThanOrEqual(FAST.afterMs + FAST.timeoutMs - 20);
    expect(waited).toBeLessThan(5000);
    expect(probesTo(g.engines[0])).toHaveLength(1);
    expect(deaths).toEqual([error]);
    expect(g.client.alive).toBe(false);
    expect(g.lines.some((l) => l.includes('engine rank 0 did not answer get_supported_tasks within 0.4s'))).toBe(true);
  });

  it('the default is 10 s for the answer (the text names it)', () => {
    expect(inputUnresponsiveText('get_supported_tasks', 10_000)).toBe(
      'engine input thread unresponsive: no reply to get_supported_tasks within 10s',
    );
  });

  it('an engine that answers stays alive through a long quiet spell and is asked again each time', async () => {
    const g = await connectGroup([0]);
    const responder = answerProbes(g.engines[0]);
    cleanups.push(() => responder.stop());
    const s = g.client.submit(sampleRequest('slow'));
    const done = collect(s);
    // Three rounds of (quiet for afterMs, ask, answer): each answer must end the wait.
    const deadline = Date.now() + 10_000;
    while (probesTo(g.engines[0]).length < 3 && Date.now() < deadline) await g.engines[0].waitForInput(g.engines[0].received.length + 1, 1000).catch(() => {});
    expect(probesTo(g.engines[0]).length).toBeGreaterThanOrEqual(3);
    expect(g.client.alive).toBe(true);
    await g.engines[0].emit(batch(0, [['slow', [7], 'stop']]));
    const { error, chunks } = await done;
    expect(error).toBeNull();
    expect(chunks.map((c) => c.newTokenIds)).toEqual([[7]]);
  });

  it('a busy engine is never asked: every output restarts the quiet spell', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('busy'));
    // Outputs three times as often as the probe would wait, for several probe windows.
    for (let i = 0; i < 20; i++) {
      await g.engines[0].emit(batch(0, [['busy', [i], null]]));
      await sleep(FAST.afterMs / 3);
    }
    await g.engines[0].emit(batch(0, [['busy', [99], 'stop']]));
    const { error, chunks } = await collect(s);
    expect(error).toBeNull();
    expect(chunks).toHaveLength(21);
    expect(probesTo(g.engines[0])).toHaveLength(0);
  });

  it('an idle engine is never asked, and without a probe (TokenSpeed) a stuck request is never asked either', async () => {
    const idle = await connectGroup([0]);
    const bare = await connectGroup([0], null);
    const stuck = bare.client.submit(sampleRequest('waits'));
    await sleep(FAST.afterMs + FAST.timeoutMs + 200);
    expect(probesTo(idle.engines[0])).toHaveLength(0);
    expect(idle.client.alive).toBe(true);
    expect(probesTo(bare.engines[0])).toHaveLength(0);
    expect(bare.client.alive).toBe(true);
    bare.client.abort(stuck.requestId);
  });

  it('asks only the rank that is quiet: one rank streaming does not hide another that is stuck', async () => {
    const g = await connectGroup([0, 1]);
    const chatty = g.client.submit(sampleRequest('chatty', 0));
    const stuck = collect(g.client.submit(sampleRequest('stuck', 1)));
    let i = 0;
    let settled = false;
    void stuck.then(() => (settled = true));
    while (!settled && i < 200) {
      await g.engines[0].emit(batch(0, [['chatty', [i++], null]]));
      await sleep(FAST.afterMs / 3);
    }
    const { error } = await stuck;
    expect(error).toMatchObject({ deathCause: 'input_unresponsive' });
    expect(probesTo(g.engines[0])).toHaveLength(0);
    expect(probesTo(g.engines[1])).toHaveLength(1);
    expect(g.lines.some((l) => l.includes('engine rank 1 did not answer'))).toBe(true);
    await collect(chatty);
  });
});

describe('engine client: peer counting', () => {
  it('an engine that left the input socket during the handshake kills the client right after it', async () => {
    const w = await testWorker();
    cleanups.push(w.cleanup);
    const pending = connectEngineClient({
      url: w.url,
      engineCount: 1,
      dialect: fakeDialect,
      handshakeAddress: w.handshake,
      stageTimeoutMs: 5000,
      logger: createLogger({ level: 'silent' }),
    });
    const e = new FakeEngine(0, w.handshake);
    cleanups.push(() => e.close());
    await e.hello();
    await e.awaitInit();
    await e.register();
    // Its input side goes (the registration still gets through), then it says READY.
    e.input.linger = 1000;
    e.input.close();
    await e.ready();
    const client = await pending;
    cleanups.push(() => client.close());
    const deaths: unknown[] = [];
    client.onDead((err) => deaths.push(err));
    await waitFor(() => deaths.length > 0);
    expect(deaths[0]).toMatchObject({ kind: 'dead', deathCause: 'disconnect', message: ENGINE_INPUT_DISCONNECTED_TEXT });
  });

  it('a bare unix connect to the sockets (another gateway checking the path) is no engine leaving', async () => {
    const g = await connectGroup([0]);
    const a = deriveAddresses(g.url);
    for (const path of [a.inputPath, a.outputPath]) {
      await new Promise<void>((resolve, reject) => {
        const sock = connect(path);
        sock.once('connect', () => {
          sock.destroy();
          resolve();
        });
        sock.once('error', reject);
      });
    }
    // Round trip after the checks: their disconnects have been processed by then.
    const s = g.client.submit(sampleRequest('after-check'));
    await g.engines[0].waitForInput(1);
    await sleep(100);
    await g.engines[0].emit(batch(0, [['after-check', [1], 'stop']]));
    const { error } = await collect(s);
    expect(error).toBeNull();
    expect(g.client.alive).toBe(true);
  });

  it('a stale engine connection leaving while the group is complete is no death; the real engine leaving is', async () => {
    const g = await connectGroup([0]);
    const a = deriveAddresses(g.url);
    const stale = new zmq.Push({ linger: 0 });
    stale.connect(a.output);
    // A ZMTP peer for sure once the client has read its message (a reply to nobody's call).
    await stale.send(Buffer.from(JSON.stringify({ kind: 'utility', engineIndex: 0, callId: 999, failure: null, result: null })));
    await waitForLog(g.lines, 'ignoring engine utility reply');
    stale.close();
    await waitForLog(g.lines, 'a stale engine connection closed');
    expect(g.client.alive).toBe(true);
    const s = g.client.submit(sampleRequest('v'));
    g.engines[0].vanish();
    const { error } = await collect(s);
    expect(error).toMatchObject({ kind: 'dead', deathCause: 'disconnect' });
  });
});
