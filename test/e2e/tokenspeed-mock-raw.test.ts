/**
 * `smg mock-engine` in TokenSpeed mode on the raw wire: a hand-driven frontend (bound
 * ROUTER/ROUTER/PULL) checks the handshake bytes, identities, registration, batch layout and
 * cadence, EOS handling, admission aborts, silent ABORT, dropped garbage and the death sentinel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'zeromq';
import {
  defaultSamplingParams,
  encodeTokenSpeedAbort,
  encodeTokenSpeedAddFields,
  normalizeTokenSpeedSampling,
  type TsSamplingParams,
} from '../../src/engine/dialects/tokenspeed/index.js';
import { encodeTokenSpeedHello, encodeTokenSpeedReady } from '../../src/mock-engine/wire/tokenspeed/index.js';
import { decodeMsgpack } from '../../src/engine/msgpack/reader.js';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import { freeTcpPort, spawnMockEngineArgv } from '../../src/mock-engine/spawn.js';
import { RawFrontend, RawRigs, type RawRig } from './support/raw-frontend.js';

type Batch = unknown[];

class TsFrontend extends RawFrontend {
  readonly hellos: Buffer[] = [];
  readonly readies: Buffer[] = [];
  /** Identities in HELLO order. */
  readonly identities: number[] = [];

  constructor() {
    super('smg-ts-raw-');
  }

  protected onStatus(id: Buffer, payload: Buffer): boolean {
    if (!payload.equals(encodeTokenSpeedHello())) {
      this.readies.push(payload);
      return false;
    }
    this.hellos.push(payload);
    this.identities.push(id.readUInt16LE(0));
    return true;
  }

  protected readyCount(): number {
    return this.readies.length;
  }

  nextBatch(timeoutMs?: number): Promise<Batch> {
    return this.nextDecoded<Batch>(timeoutMs);
  }

  /** Batches until one carries a terminal row for `rid` (that one included). */
  untilDone(rid: string, timeoutMs?: number): Promise<Batch[]> {
    return this.collectUntil<Batch>((b) => rowsOf([b], rid).some((r) => r.finish !== ''), timeoutMs);
  }
}

interface Row {
  ids: number[];
  finish: string;
  prompt: number;
  completion: number;
  lpVals: number[];
  lpIdx: number[];
}

function rowsOf(batches: Batch[], rid: string): Row[] {
  const out: Row[] = [];
  for (const b of batches) {
    const rids = b[1] as string[];
    rids.forEach((r, i) => {
      if (r !== rid) return;
      const col = <T>(c: number) => (b[c] as T[])[i];
      out.push({
        ids: col<number[]>(2),
        finish: col<string>(3),
        prompt: col<number>(4),
        completion: col<number>(5),
        lpVals: col<number[]>(7),
        lpIdx: col<number[]>(8),
      });
    });
  }
  return out;
}

function add(
  rid: string,
  sp: Partial<TsSamplingParams> = {},
  o: { inputIds?: number[]; returnLogprob?: boolean; stream?: boolean } = {},
): Buffer[] {
  const sampling = normalizeTokenSpeedSampling({ ...defaultSamplingParams(), ...sp });
  const payload = encodeTokenSpeedAddFields({
    rid,
    inputIds: o.inputIds ?? [1, 2, 3],
    sampling,
    returnLogprob: o.returnLogprob ?? false,
    stream: o.stream ?? true,
  });
  return [Buffer.from([0x00]), payload];
}

const rigs = new RawRigs<TsFrontend>();

/** Count mode (ids 100, 101, …) with EOS 105 unless the test overrides it. */
function start(extra: string[] = [], ranks = 1): Promise<RawRig<TsFrontend>> {
  const argv = (port: number) => [
    '--backend', 'tokenspeed', 'serve', '--headless', '--model', 'mock-model',
    '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(port),
    '--mock-log-requests', '--mock-mode', 'count', '--mock-eos-token-ids', '105', ...extra,
  ];
  return rigs.start(new TsFrontend(), (port) => spawnMockEngineArgv(argv(port)), ranks);
}

afterEach(() => rigs.stopAll());

describe('TokenSpeed mock engine on the raw wire', () => {
  it('handshakes as TokenSpeed: identities base+rank, 4-key HELLO/READY, 19-key registration', async () => {
    const { fe } = await start(['--zmq-engine-index', '4', '--data-parallel-size', '2', '--dist-init-addr', '127.0.0.1:31233',
      '--served-model-name', 'Qwen/Qwen3-0.6B', '--mock-load-delay-ms', '50'], 2);
    expect(fe.identities.sort()).toEqual([4, 5]);
    const hello = '84a6737461747573a548454c4c4fa56c6f63616cc3a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368c0';
    const ready = '84a6737461747573a55245414459a56c6f63616cc3a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368c0';
    expect(fe.hellos.map((b) => b.toString('hex'))).toEqual([hello, hello]);
    expect(fe.readies.map((b) => b.toString('hex'))).toEqual([ready, ready]);
    const reg = fe.registrations.get(5)!;
    expect(Object.keys(reg)).toHaveLength(19);
    expect(reg).toMatchObject({
      prefix_granularity: 64, vllm_version: 'tokenspeed-0.1.0', data_parallel_size: 2, data_parallel_rank: 1,
      world_size: 2, pipeline_parallel_size: 1, instance_id: 'Qwen/Qwen3-0.6B', max_num_seqs: 160,
      max_num_batched_tokens: 8192, num_gpu_blocks: 2048, kv_cache_size_tokens: 131072, dp_stats_address: null,
    });
    expect(reg).not.toHaveProperty('block_size');
    expect(fe.registrations.get(4)?.data_parallel_rank).toBe(0);
  });

  it('streams delta rows with cumulative counters, keeps EOS in output_ids, reports load and engine_index', async () => {
    const { fe } = await start(['--zmq-engine-index', '3']);
    expect(fe.registrations.get(3)).toBeDefined();
    await fe.send(3, add('s1'));
    const batches = await fe.untilDone('s1');
    for (const b of batches) {
      expect(b).toHaveLength(14);
      expect(b[0]).toBe('BatchTokenIDOutSlim');
      expect(b[9]).toBe(3);
      expect(b[13]).toBe(2048);
    }
    expect(batches[0].slice(10, 12)).toEqual([1, 0]);
    const rows = rowsOf(batches, 's1');
    expect(rows.map((r) => r.ids)).toEqual([[100], [101], [102], [103], [104], [105]]);
    expect(rows.map((r) => r.completion)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.map((r) => r.finish)).toEqual(['', '', '', '', '', 'stop']);
    expect(rows.every((r) => r.prompt === 3 && r.lpVals.length === 0 && r.lpIdx.length === 0)).toBe(true);
    expect(await fe.quietFor(150)).toBe(true); // idle: no heartbeat
  });

  it('checks length before EOS, honours ignore_eos (which also drops stop ids), and user stop ids', async () => {
    const { fe } = await start();
    await fe.send(0, add('len', { maxNewTokens: 6 }));
    expect(rowsOf(await fe.untilDone('len'), 'len').at(-1)).toMatchObject({ ids: [105], finish: 'length', completion: 6 });
    await fe.send(0, add('ign', { maxNewTokens: 8, ignoreEos: true, stopTokenIds: [102] }));
    const ign = rowsOf(await fe.untilDone('ign'), 'ign');
    expect(ign.flatMap((r) => r.ids)).toEqual([100, 101, 102, 103, 104, 105, 106, 107]);
    expect(ign.at(-1)?.finish).toBe('length');
    await fe.send(0, add('sid', { stopTokenIds: [102] }));
    expect(rowsOf(await fe.untilDone('sid'), 'sid').at(-1)).toMatchObject({ ids: [102], finish: 'stop', completion: 3 });
  });

  it('emits non-streaming rows at the 1st, every 50th and the final token; stream_interval k at 1, k+1, …', async () => {
    const { fe } = await start(['--mock-eos-token-ids', '99999']);
    await fe.send(0, add('ns', { maxNewTokens: 120 }, { stream: false }));
    const ns = rowsOf(await fe.untilDone('ns'), 'ns');
    expect(ns.map((r) => [r.ids.length, r.completion, r.finish])).toEqual([[1, 1, ''], [49, 50, ''], [50, 100, ''], [20, 120, 'length']]);
    await fe.send(0, add('k3', { maxNewTokens: 8, streamInterval: 3 }));
    const k3 = rowsOf(await fe.untilDone('k3'), 'k3');
    expect(k3.map((r) => r.completion)).toEqual([1, 4, 7, 8]);
    expect(k3.flatMap((r) => r.ids)).toEqual([100, 101, 102, 103, 104, 105, 106, 107]);
  });

  it('returns one float64 logprob per token with --enable-output-logprobs', async () => {
    const { fe } = await start(['--enable-output-logprobs']);
    await fe.send(0, add('lp', { maxNewTokens: 3 }, { returnLogprob: true }));
    const rows = rowsOf(await fe.untilDone('lp'), 'lp');
    for (const r of rows) {
      expect(r.lpIdx).toEqual(r.ids);
      expect(r.lpVals).toHaveLength(r.ids.length);
      expect(r.lpVals.every((v) => v < 0)).toBe(true);
    }
  });

  it('aborts at admission with one terminal row: logprobs off, grammar with none, top_k 128, n 2, top_p 0', async () => {
    const { fe, engine } = await start();
    const cases: [string, Buffer[], RegExp][] = [
      ['a-lp', add('a-lp', {}, { returnLogprob: true, inputIds: [1, 2, 3, 4] }), /--enable-output-logprobs/],
      ['a-gr', add('a-gr', { jsonSchema: '{"type":"object"}' }), /grammar-backend none/],
      ['a-tk', add('a-tk', { topK: 128 }), /top_k/],
      ['a-n', add('a-n', { n: 2 }), /n must be 1/],
      ['a-tp', add('a-tp', { topP: 0 }), /top_p/],
    ];
    for (const [rid, frames, why] of cases) {
      await fe.send(0, frames);
      const b = await fe.nextBatch();
      expect(b[1]).toEqual([rid]);
      expect(rowsOf([b], rid)).toEqual([
        { ids: [], finish: 'abort', prompt: rid === 'a-lp' ? 4 : 3, completion: 0, lpVals: [], lpIdx: [] },
      ]);
      await engine.waitForLine(new RegExp(`aborted at admission: ${rid}: .*${why.source}`));
    }
  });

  it('never answers ABORT; an aborted unknown rid silently kills a later ADD; garbage is dropped', async () => {
    const { fe, engine } = await start(['--mock-token-delay-ms', '20', '--mock-eos-token-ids', '99999']);
    await fe.send(0, add('ab'));
    expect(rowsOf([await fe.nextBatch()], 'ab')).toHaveLength(1);
    await fe.send(0, encodeTokenSpeedAbort(['ab']));
    await engine.waitForLine(/abort: ab \(1 in flight; no reply\)/);
    // At most a batch already in flight; then nothing at all, not even a terminal row.
    const late: Batch[] = [];
    while (!(await fe.quietFor(200))) late.push(await fe.nextBatch());
    expect(rowsOf(late, 'ab').every((r) => r.finish === '')).toBe(true);

    await fe.send(0, encodeTokenSpeedAbort(['early']));
    await fe.send(0, add('early', { maxNewTokens: 2 }));
    await engine.waitForLine(/request early was aborted before it arrived; dropped silently/);
    expect(await fe.quietFor(200)).toBe(true);

    await fe.send(0, [Buffer.from([0x07]), Buffer.from([0x90])]);
    await fe.send(0, [Buffer.from([0x00]), Buffer.from([0xc1])]);
    await engine.waitForLine(/dropping malformed message \(unknown request type 0x07\)/);
    await fe.send(0, add('after', { maxNewTokens: 2 }));
    expect(rowsOf(await fe.untilDone('after'), 'after').flatMap((r) => r.ids)).toEqual([100, 101]);
  });

  it('writes 9- and 10-element batches and a legacy block_size registration on request', async () => {
    const nine = await start(['--mock-output-arity', '9', '--mock-registration-key', 'block_size']);
    expect(nine.fe.registrations.get(0)).toMatchObject({ block_size: 64 });
    await nine.fe.send(0, add('n9', { maxNewTokens: 1 }));
    expect(await nine.fe.nextBatch()).toHaveLength(9);
    const ten = await start(['--mock-output-arity', '10']);
    await ten.fe.send(0, add('n10', { maxNewTokens: 1 }));
    expect(await ten.fe.nextBatch()).toHaveLength(10);
  });

  it('INIT: reads the last frame and needs only addresses; empty data-plane lists exit 1 after READY, without a sentinel', async () => {
    const port = await freeTcpPort();
    const fe = new TsFrontend();
    await fe.bind(port);
    const argv = (p: number) => ['--backend', 'tokenspeed', 'serve', '--model', 'm', '--data-parallel-rpc-port', String(p), '--mock-mode', 'count'];
    const ok = spawnMockEngineArgv(argv(port));
    rigs.track({ fe, engine: ok });
    const [id] = await fe.hs.receive();
    const init = encodeWith((w) => w.mapHeader(1).str('addresses').mapHeader(2)
      .str('inputs').strArray([`ipc://${fe.dirPath}/in.sock`]).str('outputs').strArray([`ipc://${fe.dirPath}/out.sock`]));
    await fe.hs.send([id, Buffer.from([0xc1]), init]);
    expect((await fe.hs.receive())[1].equals(encodeTokenSpeedReady())).toBe(true);
    await ok.waitForLine(/serving: 1 engine\(s\) registered/);

    const port2 = await freeTcpPort();
    const hs2 = new Router({ linger: 0, receiveTimeout: 10_000 });
    await hs2.bind(`tcp://127.0.0.1:${port2}`);
    const bad = spawnMockEngineArgv(argv(port2));
    try {
      const [id2] = await hs2.receive();
      await hs2.send([id2, encodeWith((w) => w.mapHeader(1).str('addresses').mapHeader(2).str('inputs').strArray([]).str('outputs').strArray([]))]);
      expect((await hs2.receive())[1].equals(encodeTokenSpeedReady())).toBe(true);
      expect((await bad.exited).code).toBe(1);
      expect(bad.output()).toContain('INIT addresses.inputs and addresses.outputs must be non-empty');
    } finally {
      hs2.close();
      await bad.stop();
    }
  });

  it('crashes with ENGINE_CORE_DEAD on the dead fault and on stream_interval 0; SIGTERM also sends it', async () => {
    const dead = await start(['--mock-fault', 'dead', '--mock-fault-after-tokens', '2']);
    await dead.fe.send(0, add('d'));
    for (;;) {
      const frames = await dead.fe.next();
      if (frames[0].toString() === 'ENGINE_CORE_DEAD') break;
      expect(rowsOf([decodeMsgpack(frames[0]) as Batch], 'd').every((r) => r.finish === '')).toBe(true);
    }
    expect((await dead.engine.exited).code).toBe(1);

    // As below: one request through first, so the sentinel has a connected socket to go out on.
    const zero = await start();
    await zero.fe.send(0, add('z0', { maxNewTokens: 2 }));
    await zero.fe.untilDone('z0');
    await zero.fe.send(0, add('z', { streamInterval: 0 }));
    expect((await zero.fe.next())[0].toString()).toBe('ENGINE_CORE_DEAD');
    expect((await zero.engine.exited).code).toBe(1);

    const term = await start();
    // One request through first, so the engine's output socket is known to be connected: a
    // sentinel queued while the connect is still under way is lost when the process exits.
    await term.fe.send(0, add('t', { maxNewTokens: 2 }));
    await term.fe.untilDone('t');
    term.engine.child.kill('SIGTERM');
    expect((await term.fe.next())[0].toString()).toBe('ENGINE_CORE_DEAD');
    expect((await term.engine.exited).code).toBe(0);
  });
});
