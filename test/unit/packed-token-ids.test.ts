/**
 * A long prompt's ids packed on its prompt thread (engine/msgpack/packed-token-ids.ts) reach the
 * engines as the very ADD bytes the event loop wrote before, in both dialects; ids the guards
 * would refuse are never packed (the loop then refuses them in its own words), and a list changed
 * after packing is encoded id by id again.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireFieldError } from '../../src/engine/dialects/guard-checks.js';
import { encodeTokenSpeedAdd } from '../../src/engine/dialects/tokenspeed/request-encode.js';
import { encodeAdd } from '../../src/engine/dialects/vllm/request.js';
import { attachPackedTokenIds, packTokenIds, packedTokenIdsOf } from '../../src/engine/msgpack/packed-token-ids.js';
import { MsgpackWriter } from '../../src/engine/msgpack/writer.js';
import type { EngineRequest, InputFrames } from '../../src/engine/types.js';
import { ChatTemplate } from '../../src/pipeline/chat-prompt/chat-template.js';
import { encodePromptText } from '../../src/pipeline/prompt-pool/encode-prompt.js';
import type { PromptPool } from '../../src/pipeline/prompt-pool/pool.js';
import { PACK_MIN_IDS } from '../../src/pipeline/prompt-pool/protocol.js';
import { startPromptPool } from '../../src/pipeline/prompt-pool/start.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { samplingSpec } from '../support/sampling.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');

/** Ids of every msgpack size class (fixint, uint8, uint16, uint32) up to the guards' bound. */
function mixedIds(n: number): number[] {
  const classes = [0, 5, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 151_643, 0x7fff_ffff];
  return Array.from({ length: n }, (_, i) => (i % 3 === 0 ? classes[i % classes.length] : (i * 7919) % 200_000));
}

function request(promptTokenIds: number[]): EngineRequest {
  return {
    requestId: 'req-long',
    promptTokenIds,
    sampling: samplingSpec({ maxTokens: 8, temperature: 0.7, stopTokenIds: [2] }),
    arrivalTime: 1700000000.25,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
  };
}

const bytes = (frames: InputFrames) => Buffer.concat(frames.map((f) => Buffer.from(f)));

/** A list with the thread's bytes attached, as the prompt pool hands it over. */
function packed(ids: number[]): number[] {
  const copy = ids.slice();
  const b = packTokenIds(Uint32Array.from(ids));
  expect(b).not.toBeNull();
  attachPackedTokenIds(copy, b!);
  expect(packedTokenIdsOf(copy)).toBe(b);
  return copy;
}

describe('packTokenIds', () => {
  it("writes the bytes MsgpackWriter's uintArray and intArray write, for every header size", () => {
    for (const n of [1, 15, 16, 300, 0xffff, 0x10000, 131_072]) {
      const ids = mixedIds(n);
      const got = Buffer.from(packTokenIds(Uint32Array.from(ids))!);
      expect(got.equals(new MsgpackWriter().uintArray(ids).toBuffer())).toBe(true);
      expect(got.equals(new MsgpackWriter().intArray(ids).toBuffer())).toBe(true);
    }
  });

  it('packs nothing the wire guards would refuse', () => {
    expect(packTokenIds([])).toBeNull();
    expect(packTokenIds(Uint32Array.from([1, 0x8000_0000, 2]))).toBeNull();
    expect(packTokenIds([1, -1])).toBeNull();
    expect(packTokenIds([1, 2.5])).toBeNull();
    expect(packTokenIds([1, Number.NaN])).toBeNull();
  });
});

describe('an ADD with packed prompt ids', () => {
  const ids = mixedIds(131_072);

  it('is byte-identical to the one encoded id by id (vLLM)', () => {
    expect(bytes(encodeAdd(request(packed(ids)))).equals(bytes(encodeAdd(request(ids.slice()))))).toBe(true);
  });

  it('is byte-identical to the one encoded id by id (TokenSpeed)', () => {
    expect(bytes(encodeTokenSpeedAdd(request(packed(ids)))).equals(bytes(encodeTokenSpeedAdd(request(ids.slice()))))).toBe(true);
  });

  it('is encoded id by id again once its list changed', () => {
    for (const change of [(l: number[]) => l.push(7), (l: number[]) => (l[l.length - 1] = 9), (l: number[]) => (l[0] = 0x8000_0000)]) {
      const list = packed(ids);
      change(list);
      expect(packedTokenIdsOf(list)).toBeNull();
      let plain: Buffer | Error;
      try {
        plain = bytes(encodeAdd(request(list.slice())));
      } catch (err) {
        plain = err as Error;
      }
      if (plain instanceof Error) {
        expect(() => encodeAdd(request(list))).toThrow(WireFieldError);
        expect(() => encodeAdd(request(list))).toThrow(plain.message);
      } else {
        expect(bytes(encodeAdd(request(list))).equals(plain)).toBe(true);
        expect(bytes(encodeTokenSpeedAdd(request(list))).equals(bytes(encodeTokenSpeedAdd(request(list.slice()))))).toBe(true);
      }
    }
  });
});

describe('ids from a prompt thread', () => {
  let tok: LoadedTokenizer;
  let pool: PromptPool;
  beforeAll(async () => {
    tok = await loadTokenizer(TINY);
    pool = startPromptPool(tok, ChatTemplate.compile(tok.chatTemplate, tok));
    await pool.whenReady();
  });
  afterAll(() => pool.close());

  it("come packed from PACK_MIN_IDS on, and the ADDs are the event loop's bytes", async () => {
    const text = 'Hi the hello world 世界 👋 '.repeat(1500);
    const ids = await encodePromptText({ tokenizer: tok, pool }, text);
    expect(ids).toEqual(tok.encode(text, false));
    expect(ids.length).toBeGreaterThanOrEqual(PACK_MIN_IDS);
    expect(packedTokenIdsOf(ids)).not.toBeNull();
    expect(bytes(encodeAdd(request(ids))).equals(bytes(encodeAdd(request(ids.slice()))))).toBe(true);
    expect(bytes(encodeTokenSpeedAdd(request(ids))).equals(bytes(encodeTokenSpeedAdd(request(ids.slice()))))).toBe(true);
  });

  it('come unpacked below PACK_MIN_IDS', async () => {
    const text = 'Hi the hello world 世界 👋 '.repeat(60);
    const ids = await encodePromptText({ tokenizer: tok, pool }, text);
    expect(ids).toEqual(tok.encode(text, false));
    expect(ids.length).toBeLessThan(PACK_MIN_IDS);
    expect(packedTokenIdsOf(ids)).toBeNull();
  });
});
