/**
 * Test doubles for the engine-client tests: a JSON "dialect" (the real codecs are tested on
 * their own) and in-process fake engines built from real zeromq sockets over ipc/tcp.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { engineIdFor } from '../../src/engine/engine-id.js';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { decodeInit, encodeHello, encodeReady, type InitMessage } from '../../src/engine/handshake-messages.js';
import {
  WireDecodeError,
  type Dialect,
  type EngineLoad,
  type EngineRequest,
  type OutputEvent,
  type Registration,
} from '../../src/engine/types.js';
import { samplingSpec } from '../support/sampling.js';

export const DEAD_SENTINEL = Buffer.from('ENGINE_CORE_DEAD', 'ascii');

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

export interface FakeRegistration {
  maxModelLen?: number;
  dataParallelSize?: number;
}

/** Type bytes as in vLLM, payloads as JSON. */
export const fakeDialect: Dialect = {
  runtime: 'vllm',
  encodeAdd: (req) => [Buffer.from([0x00]), json({ id: req.requestId, prompt: req.promptTokenIds })],
  encodeAbort: (ids) => [Buffer.from([0x01]), json(ids)],
  encodeStartWave: (wave) => [Buffer.from([0x02]), json([wave, null])],
  decodeRegistration(payload): Registration {
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(payload.toString()) as Record<string, unknown>;
    } catch {
      throw new WireDecodeError('registration is not JSON');
    }
    return {
      maxModelLen: Number(raw.maxModelLen ?? 4096),
      numGpuBlocks: 100,
      blockSize: 16,
      dtype: 'bfloat16',
      version: 'fake',
      worldSize: 1,
      dataParallelSize: Number(raw.dataParallelSize ?? 1),
      dataParallelRank: null,
      tensorParallelSize: 1,
      maxNumSeqs: null,
      maxNumBatchedTokens: null,
      instanceId: null,
      raw,
    };
  },
  decodeOutput(frames): OutputEvent {
    if (frames.length === 1 && frames[0].equals(DEAD_SENTINEL)) return { kind: 'dead' };
    try {
      return JSON.parse(frames[0].toString()) as OutputEvent;
    } catch {
      throw new WireDecodeError(`messagepack decode failed for EngineCoreOutputs: garbage`);
    }
  },
};

/** A batch event with one output per [id, tokens, finish] triple. */
export function batch(
  engineIndex: number,
  outs: Array<[string, number[], 'stop' | 'length' | 'abort' | null]>,
  extra: { load?: EngineLoad; finishedRequests?: string[] } = {},
): Buffer {
  return json({
    kind: 'batch',
    engineIndex,
    outputs: outs.map(([requestId, newTokenIds, finish]) => ({
      requestId,
      newTokenIds,
      finish,
      stopReason: null,
      logprobs: null,
      cachedTokens: null,
      errorMessage: null,
    })),
    load: extra.load ?? null,
    finishedRequests: extra.finishedRequests ?? null,
  });
}

export function sampleRequest(id: string, rank: number | null = null): EngineRequest {
  return {
    requestId: id,
    promptTokenIds: [1, 2, 3],
    sampling: samplingSpec({ temperature: 0, maxTokens: 4 }),
    arrivalTime: 1_700_000_000,
    cacheSalt: null,
    dataParallelRank: rank,
    priority: 0,
  };
}

/** A private socket dir plus a unique worker URL and handshake override. */
export async function testWorker(): Promise<{ dir: string; url: string; handshake: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-eng-'));
  const port = await freeTcpPort();
  return {
    dir,
    url: `ipc://${dir}/w`,
    handshake: `tcp://127.0.0.1:${port}`,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

const routingId = (index: number) => engineIdFor(index) as unknown as string;

/**
 * One fake engine rank, driven step by step so tests choose the message order.
 * Sockets use linger 0 except the PUSH, which must flush the death sentinel.
 */
export class FakeEngine {
  readonly hs: zmq.Dealer;
  readonly input: zmq.Dealer;
  readonly output: zmq.Push;
  init: InitMessage | null = null;
  /** Everything received on the input socket: [type byte, ...payload frames]. */
  readonly received: Buffer[][] = [];
  private waiters: Array<() => void> = [];

  constructor(
    readonly index: number,
    private readonly handshakeAddr: string,
    private readonly reg: FakeRegistration = {},
  ) {
    this.hs = new zmq.Dealer({ linger: 0, routingId: routingId(index) });
    this.input = new zmq.Dealer({ linger: 0, routingId: routingId(index) });
    this.output = new zmq.Push({ linger: 1000, sendHighWaterMark: 0 });
  }

  async hello(): Promise<void> {
    this.hs.connect(this.handshakeAddr);
    await this.hs.send(encodeHello());
  }

  async awaitInit(): Promise<InitMessage> {
    const [payload] = await this.hs.receive();
    this.init = decodeInit(payload);
    return this.init;
  }

  async register(payload: Buffer = json(this.reg)): Promise<void> {
    const init = this.init as InitMessage;
    this.input.connect(init.addresses.inputs[0]);
    await this.input.send(payload);
    this.output.connect(init.addresses.outputs[0]);
  }

  async ready(): Promise<void> {
    await this.hs.send(encodeReady());
  }

  /** The whole vLLM-order handshake (registration before READY), then start reading input. */
  async start(order: 'registration-first' | 'ready-first' = 'registration-first'): Promise<void> {
    await this.hello();
    await this.awaitInit();
    if (order === 'ready-first') {
      await this.ready();
      await this.register();
    } else {
      await this.register();
      await this.ready();
    }
    this.hs.close();
    void this.readInput();
  }

  private async readInput(): Promise<void> {
    try {
      for (;;) {
        const frames = await this.input.receive();
        this.received.push(frames);
        for (const w of this.waiters.splice(0)) w();
      }
    } catch {
      // socket closed
    }
  }

  /** Waits until at least `n` input messages arrived. */
  async waitForInput(n: number, timeoutMs = 5000): Promise<Buffer[][]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > deadline) throw new Error(`engine ${this.index}: got ${this.received.length}/${n} inputs`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.received;
  }

  /** Input messages decoded from the fake dialect: [type, JSON payload]. */
  decodedInputs(): Array<[number, unknown]> {
    return this.received.map((f) => [f[0][0], JSON.parse(f[1].toString())]);
  }

  emit(frames: Buffer | Buffer[]): Promise<void> {
    return this.output.send(frames);
  }

  close(): void {
    for (const s of [this.hs, this.input, this.output]) if (!s.closed) s.close();
  }

  /** Vanish without a sentinel, like SIGKILL: no linger, no goodbye. */
  vanish(): void {
    this.output.linger = 0;
    this.close();
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
