import { spawn, type ChildProcess } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type * as zmq from 'zeromq';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError, type EngineChunk, type RequestStream } from '../../src/engine/client-types.js';
import {
  CLIENT_CLOSED_TEXT,
  connectEngineClient,
  ENGINE_DEAD_TEXT,
  ENGINE_INPUT_DISCONNECTED_TEXT,
  ENGINE_OUTPUT_DISCONNECTED_TEXT,
  type EngineClient,
} from '../../src/engine/engine-client.js';
import { encodeHello, encodeReady } from '../../src/engine/handshake-messages.js';
import { deriveAddresses } from '../../src/engine/ipc-path.js';
import { SendQueue } from '../../src/engine/send-queue.js';
import { createLogger } from '../../src/util/logger.js';
import {
  batch,
  DEAD_SENTINEL,
  FakeEngine,
  fakeDialect,
  sampleRequest,
  sleep,
  testWorker,
  type FakeRegistration,
} from './engine-test-kit.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, logger: createLogger({ destination, level: 'debug' }) };
}

interface Group {
  client: EngineClient;
  engines: FakeEngine[];
  lines: string[];
  url: string;
  handshake: string;
}

async function connectGroup(
  indexes: number[],
  opts: { regs?: FakeRegistration[]; silenceTimeoutMs?: number } = {},
): Promise<Group> {
  const w = await testWorker();
  cleanups.push(w.cleanup);
  const { lines, logger } = capturingLogger();
  const pending = connectEngineClient({
    url: w.url,
    engineCount: indexes.length,
    dialect: fakeDialect,
    handshakeAddress: w.handshake,
    stageTimeoutMs: 5000,
    silenceTimeoutMs: opts.silenceTimeoutMs,
    logger,
  });
  const engines = indexes.map((i, k) => new FakeEngine(i, w.handshake, opts.regs?.[k] ?? {}));
  cleanups.push(() => engines.forEach((e) => e.close()));
  await Promise.all(engines.map((e) => e.start()));
  const client = await pending;
  cleanups.push(() => client.close());
  return { client, engines, lines, url: w.url, handshake: w.handshake };
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

const logged = (lines: string[], text: string) => lines.filter((l) => l.includes(text)).length;

describe('engine client: requests', () => {
  it('logs the bind line and round-trips a request', async () => {
    const g = await connectGroup([0], { regs: [{ maxModelLen: 2048 }] });
    expect(logged(g.lines, `Binding ZMQ client for worker ${g.url} (handshake=${g.handshake}, engines=1)`)).toBe(1);
    expect(g.client.maxModelLen).toBe(2048);
    expect(g.client.runtime).toBe('vllm');
    const s = g.client.submit(sampleRequest('r1'));
    expect(s.rank).toBe(0);
    await g.engines[0].waitForInput(1);
    expect(g.engines[0].decodedInputs()).toEqual([[0, { id: 'r1', prompt: [1, 2, 3] }]]);
    expect(g.client.ranks()[0].inFlight).toBe(1);
    await g.engines[0].emit(batch(0, [['ghost', [9], null]])); // unknown id: dropped
    await g.engines[0].emit(batch(0, [['r1', [5], null]]));
    await g.engines[0].emit(batch(0, [['r1', [6, 7], 'stop']], { load: { numRunning: 1, numWaiting: 0, kvCacheUsage: 0.3 } }));
    const { chunks, error } = await collect(s);
    expect(error).toBeNull();
    expect(chunks.map((c) => c.newTokenIds)).toEqual([[5], [6, 7]]);
    expect(chunks.map((c) => c.finish)).toEqual([null, 'stop']);
    // Load stored, then the release emptied the rank: running/waiting reset, kv kept.
    expect(g.client.ranks()).toEqual([{ rank: 0, inFlight: 0, load: { numRunning: 0, numWaiting: 0, kvCacheUsage: 0.3 }, prefixQueries: 0, prefixHits: 0 }]);
  });

  it('gives the event loop a turn every few ms while it drains a backlog of queued outputs', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('bk'));
    const N = 400;
    let consumed = 0;
    let consumedWhenTimerRan = -1;
    const done = (async () => {
      for await (const c of s) {
        consumed += c.newTokenIds.length;
        // A slow consumer (50 µs per token): the engine's messages pile up on the socket.
        const until = performance.now() + 0.05;
        while (performance.now() < until) {
          /* busy */
        }
      }
    })();
    for (let i = 0; i < N; i++) await g.engines[0].emit(batch(0, [['bk', [i], i === N - 1 ? 'length' : null]]));
    setTimeout(() => (consumedWhenTimerRan = consumed), 0);
    await done;
    expect(consumed).toBe(N);
    // Draining all 400 (≥ 20 ms) in one go would run the timer only at the end.
    expect(consumedWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(consumedWhenTimerRan).toBeLessThan(N / 2);
  });

  it('admission: duplicate live id, closed client; close fails in-flight and removes socket files', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('dup'));
    expect(() => g.client.submit(sampleRequest('dup'))).toThrow('request `dup` is already in flight');
    const pending = collect(s);
    const addrs = deriveAddresses(g.url, g.handshake);
    await g.client.close();
    const { error } = await pending;
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).kind).toBe('closed');
    expect((error as EngineError).message).toBe(CLIENT_CLOSED_TEXT);
    expect(g.client.alive).toBe(false);
    expect(() => g.client.submit(sampleRequest('late'))).toThrow(CLIENT_CLOSED_TEXT);
    await expect(lstat(addrs.inputPath)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(addrs.outputPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('spreads a burst over two engines and routes by identity; pins a rank', async () => {
    const g = await connectGroup([0, 1]);
    const streams = ['a', 'b', 'c', 'd'].map((id) => g.client.submit(sampleRequest(id)));
    expect(streams.map((s) => s.rank).sort()).toEqual([0, 0, 1, 1]);
    await g.engines[0].waitForInput(2);
    await g.engines[1].waitForInput(2);
    for (const e of g.engines) {
      const ids = e.decodedInputs().map(([, p]) => (p as { id: string }).id);
      expect(ids.sort()).toEqual(streams.filter((s) => s.rank === e.index).map((s) => s.requestId).sort());
    }
    const pinned = g.client.submit(sampleRequest('p', 1));
    expect(pinned.rank).toBe(1);
    expect(() => g.client.submit(sampleRequest('q', 5))).toThrow('data parallel rank 5 is out of range for 2 engine(s)');
    expect(g.client.ranks().map((r) => r.inFlight)).toEqual([2, 3]);
  });

  it('abort ends the stream, sends ABORT to the holder once and drops late outputs', async () => {
    const g = await connectGroup([0]);
    const e = g.engines[0];
    const s = g.client.submit(sampleRequest('x'));
    const result = collect(s);
    g.client.abort('x');
    g.client.abort('x');
    expect(await result).toEqual({ chunks: [], error: null });
    await e.waitForInput(2);
    expect(e.decodedInputs()[1]).toEqual([1, ['x']]);
    expect(g.client.ranks()[0].inFlight).toBe(0);
    await e.emit(batch(0, [['x', [1], null]])); // late output of the aborted request
    const s2 = g.client.submit(sampleRequest('y'));
    await e.emit(batch(0, [['y', [2], 'length']]));
    expect((await collect(s2)).chunks.map((c) => c.newTokenIds)).toEqual([[2]]);
    await e.waitForInput(3);
    await sleep(50);
    expect(e.decodedInputs().map(([t]) => t)).toEqual([0, 1, 0]); // the second abort sent nothing
  });

  it('breaking out of for-await aborts the engine request', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('brk'));
    await g.engines[0].emit(batch(0, [['brk', [1], null]]));
    for await (const c of s) {
      expect(c.newTokenIds).toEqual([1]);
      break;
    }
    await g.engines[0].waitForInput(2);
    expect(g.engines[0].decodedInputs()[1]).toEqual([1, ['brk']]);
    expect(g.client.inFlight).toBe(0);
  });

  it('ends a request named only in finished_requests as aborted', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('f'));
    await g.engines[0].emit(batch(0, [], { finishedRequests: ['f'] }));
    const { chunks } = await collect(s);
    expect(chunks.at(-1)?.finish).toBe('abort');
    expect(g.client.ranks()[0].inFlight).toBe(0);
  });
});

describe('engine client: MoE lockstep wake', () => {
  it('broadcasts START_DP_WAVE after every ADD and follows wave_complete/start_wave', async () => {
    const g = await connectGroup([0, 1], { regs: [{ dataParallelSize: 2 }, { dataParallelSize: 2 }] });
    expect(g.client.lockstep).toBe(true);
    const s = g.client.submit(sampleRequest('w1', 0));
    await g.engines[0].waitForInput(2);
    await g.engines[1].waitForInput(1);
    expect(g.engines[0].decodedInputs()).toEqual([
      [0, { id: 'w1', prompt: [1, 2, 3] }],
      [2, [1, null]],
    ]);
    expect(g.engines[1].decodedInputs()).toEqual([[2, [1, null]]]);
    await g.engines[1].emit(Buffer.from(JSON.stringify({ kind: 'wave_complete', engineIndex: 1, wave: 7 })));
    await g.engines[1].emit(Buffer.from(JSON.stringify({ kind: 'start_wave', engineIndex: 1, wave: 20 })));
    await g.engines[0].waitForInput(3);
    expect(g.engines[0].decodedInputs()[2]).toEqual([2, [21, null]]);
    expect(s.rank).toBe(0);
  });

  it('never sends a wake to independent ranks', async () => {
    const g = await connectGroup([0, 1]);
    expect(g.client.lockstep).toBe(false);
    g.client.submit(sampleRequest('d1', 0));
    await g.engines[1].emit(Buffer.from(JSON.stringify({ kind: 'wave_complete', engineIndex: 1, wave: 3 })));
    g.client.submit(sampleRequest('d2', 0));
    await g.engines[0].waitForInput(2);
    await sleep(50);
    expect(g.engines[0].decodedInputs().map(([t]) => t)).toEqual([0, 0]);
    expect(g.engines[1].received).toHaveLength(0);
  });
});

describe('engine client: liveness', () => {
  it('ENGINE_CORE_DEAD fails in-flight requests as dead and latches the client', async () => {
    const g = await connectGroup([0]);
    const deaths: EngineError[] = [];
    g.client.onDead((e) => deaths.push(e));
    const s = g.client.submit(sampleRequest('s'));
    await g.engines[0].emit(batch(0, [['s', [1], null]]));
    await g.engines[0].emit(DEAD_SENTINEL);
    const { chunks, error } = await collect(s);
    expect(chunks).toHaveLength(1); // what arrived before the death is still delivered
    expect(error).toMatchObject({ kind: 'dead', message: ENGINE_DEAD_TEXT, deathCause: 'sentinel' });
    expect(deaths).toHaveLength(1);
    expect(g.client.alive).toBe(false);
    expect(logged(g.lines, 'received ENGINE_CORE_DEAD sentinel from engine')).toBe(1);
    expect(() => g.client.submit(sampleRequest('after'))).toThrow(CLIENT_CLOSED_TEXT);
    const late: EngineError[] = [];
    g.client.onDead((e) => late.push(e));
    await sleep(0);
    expect(late).toHaveLength(1);
  });

  it('two undecodable messages are ignored and the run resets after a good batch', async () => {
    const g = await connectGroup([0]);
    const e = g.engines[0];
    const s = g.client.submit(sampleRequest('g'));
    await e.emit(Buffer.from('garbage'));
    await e.emit(Buffer.from('garbage'));
    await e.emit(batch(0, [['g', [1], null]]));
    await e.emit(Buffer.from('garbage'));
    await e.emit(Buffer.from('garbage'));
    await e.emit(batch(0, [['g', [2], 'stop']]));
    const { chunks, error } = await collect(s);
    expect(error).toBeNull();
    expect(chunks.map((c) => c.newTokenIds)).toEqual([[1], [2]]);
    expect(g.client.alive).toBe(true);
    expect(logged(g.lines, 'ignoring undecodable engine output')).toBe(4);
  });

  it('three undecodable messages in a row fail in-flight requests with the decode error', async () => {
    const g = await connectGroup([0]);
    const s = g.client.submit(sampleRequest('g3'));
    for (let i = 0; i < 3; i++) await g.engines[0].emit(Buffer.from('garbage'));
    const { error } = await collect(s);
    expect(error).toMatchObject({ kind: 'decode', message: 'messagepack decode failed for EngineCoreOutputs: garbage' });
    expect(logged(g.lines, 'engine output undecodable repeatedly; failing all in-flight requests')).toBe(1);
    expect(g.client.alive).toBe(false);
  });

  it('silence with requests in flight is death; an idle engine is never declared dead', async () => {
    const g = await connectGroup([0], { silenceTimeoutMs: 300 });
    await sleep(450); // idle: no requests, no outputs
    expect(g.client.alive).toBe(true);
    const t0 = performance.now();
    const { error } = await collect(g.client.submit(sampleRequest('quiet')));
    const waited = performance.now() - t0;
    expect(error).toMatchObject({ kind: 'dead', message: ENGINE_DEAD_TEXT, deathCause: 'silence' });
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1500);
    expect(logged(g.lines, 'no engine output for 0.3s with in-flight requests; treating engine as dead')).toBe(1);
  });

  it('outputs keep the silence watchdog quiet', async () => {
    const g = await connectGroup([0], { silenceTimeoutMs: 300 });
    const s = g.client.submit(sampleRequest('chatty'));
    for (let i = 0; i < 6; i++) {
      await sleep(100);
      await g.engines[0].emit(batch(0, [['chatty', [i], null]]));
    }
    await g.engines[0].emit(batch(0, [['chatty', [99], 'stop']]));
    const { error, chunks } = await collect(s);
    expect(error).toBeNull();
    expect(chunks).toHaveLength(7);
  });

  it('detects an engine that vanishes without a sentinel within ~1 s (in-process close)', async () => {
    const g = await connectGroup([0, 1]);
    const deaths: EngineError[] = [];
    g.client.onDead((e) => deaths.push(e));
    const s = g.client.submit(sampleRequest('v', 1));
    const t0 = performance.now();
    g.engines[1].vanish();
    const { error } = await collect(s);
    const ms = performance.now() - t0;
    console.log(`peer disconnect (in-process close) detected in ${ms.toFixed(1)} ms`);
    expect(error).toMatchObject({ kind: 'dead', deathCause: 'disconnect' });
    expect([ENGINE_INPUT_DISCONNECTED_TEXT, ENGINE_OUTPUT_DISCONNECTED_TEXT]).toContain((error as Error).message);
    expect(ms).toBeLessThan(1000);
    expect(deaths).toHaveLength(1);
    expect(logged(g.lines, 'treating engine as dead')).toBe(1);
  });

  it('detects a SIGKILLed engine process within ~1 s', async () => {
    const w = await testWorker();
    cleanups.push(w.cleanup);
    const { logger } = capturingLogger();
    const pending = connectEngineClient({
      url: w.url,
      engineCount: 1,
      dialect: fakeDialect,
      handshakeAddress: w.handshake,
      stageTimeoutMs: 10_000,
      logger,
    });
    const addrs = deriveAddresses(w.url, w.handshake);
    const child = spawnEngineProcess(w.handshake, addrs.input, addrs.output);
    cleanups.push(() => child.kill('SIGKILL'));
    const client = await pending;
    cleanups.push(() => client.close());
    const s = client.submit(sampleRequest('k'));
    await waitForLine(child, 'got-add');
    const t0 = performance.now();
    child.kill('SIGKILL');
    const { error } = await collect(s);
    const ms = performance.now() - t0;
    console.log(`peer disconnect (SIGKILL of the engine process) detected in ${ms.toFixed(1)} ms`);
    expect((error as Error).message).toMatch(/^engine disconnected: an engine closed its (input|output) connection/);
    expect(error).toMatchObject({ kind: 'dead', deathCause: 'disconnect' });
    expect(ms).toBeLessThan(1000);
  });
});

/** A minimal engine in its own process, so SIGKILL is a real crash with no goodbye. */
function spawnEngineProcess(handshake: string, input: string, output: string): ChildProcess {
  const script = `
    const zmq = await import('zeromq');
    const [hsAddr, inAddr, outAddr, hello, ready] = process.argv.slice(1);
    const id = Buffer.from([0, 0]);
    const hs = new zmq.Dealer({ linger: 0, routingId: id });
    hs.connect(hsAddr);
    await hs.send(Buffer.from(hello, 'hex'));
    await hs.receive();
    const inp = new zmq.Dealer({ linger: 0, routingId: id });
    inp.connect(inAddr);
    await inp.send(Buffer.from('{}'));
    const out = new zmq.Push({ linger: 0 });
    out.connect(outAddr);
    await hs.send(Buffer.from(ready, 'hex'));
    hs.close();
    for await (const [type] of inp) if (type[0] === 0) process.stdout.write('got-add\\n');
  `;
  return spawn(
    process.execPath,
    ['--input-type=module', '-e', script, handshake, input, output, encodeHello().toString('hex'), encodeReady().toString('hex')],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
}

function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`child never printed ${text}`)), 10_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

describe('SendQueue', () => {
  function fakeSocket(behaviour: (frames: Buffer[]) => Promise<void>) {
    let inFlight = 0;
    const sent: string[] = [];
    const socket = {
      async send(frames: Buffer[]) {
        if (inFlight > 0) throw Object.assign(new Error('busy'), { code: 'EBUSY' });
        inFlight++;
        try {
          await behaviour(frames);
          sent.push(frames.map((f) => f.toString()).join('|'));
        } finally {
          inFlight--;
        }
      },
    } as unknown as zmq.Writable<Buffer[]>;
    return { socket, sent };
  }

  it('keeps one send in flight and preserves order', async () => {
    const { socket, sent } = fakeSocket(() => sleep(Math.random() * 3));
    const q = new SendQueue(socket, (e) => {
      throw e;
    });
    for (let i = 0; i < 50; i++) q.enqueue([Buffer.from(`m${i}`)]);
    await sleep(300);
    expect(sent).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });

  it('a failed send (timeout) is reported once and drops the rest', async () => {
    let n = 0;
    const { socket, sent } = fakeSocket(async () => {
      if (++n === 2) throw Object.assign(new Error('Operation was not possible or timed out'), { code: 'EAGAIN' });
    });
    const failures: unknown[] = [];
    const q = new SendQueue(socket, (e) => failures.push(e));
    for (let i = 0; i < 5; i++) q.enqueue([Buffer.from(`m${i}`)]);
    await sleep(20);
    q.enqueue([Buffer.from('after')]);
    await sleep(20);
    expect(sent).toEqual(['m0']);
    expect(failures).toHaveLength(1);
    expect(q.broken).toBe(true);
  });
});
