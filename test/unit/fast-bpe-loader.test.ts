/**
 * The fast BPE encoder's loader and its less common paths, on small synthetic byte-level
 * tokenizers: every option it does not implement is refused with the reason (never approximated),
 * and what it does implement (ignore_merges, duplicate merges, both merge formats, normalized and
 * raw added tokens, NFC, long words, the word cache filling up, the GPT-2 split with Rust's `\s`)
 * gives the ids of the Rust binding and the JS library.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { buildFastBpeEncoder, type FastBpeEncoder } from '../../src/pipeline/tokenizer/fast-bpe/index.js';
import { rng } from '../fixtures/pipeline-random.js';
import { ALPHABET, binding, toByteLevel } from '../support/tokenizers-binding.js';

type Json = Record<string, unknown>;


/** A byte-level BPE tokenizer.json: the 256 byte tokens, then `merges` ("a b", byte-level text). */
function tokenizerJson(merges: string[], extra: { vocab?: string[]; model?: Json; top?: Json } = {}): Json {
  const vocab: Record<string, number> = {};
  ALPHABET.forEach((c, i) => (vocab[c] = i));
  const add = (t: string) => {
    if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  };
  for (const m of merges) add(m.replace(' ', ''));
  for (const t of extra.vocab ?? []) add(t);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges, ...extra.model },
    ...extra.top,
  };
}

const MERGES = ['h e', 'l l', 'he ll', 'hell o', 'Ġ w', 'o r', 'Ġw or', 'a b', 'ab ab', 'abab abab', 'Ġ Ġ', 'e Ì', '1 2'];
const QWEN_SPLIT = {
  type: 'Split',
  pattern: { Regex: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
  behavior: 'Isolated',
  invert: false,
};
const splitThen = (...splits: Json[]) => ({ type: 'Sequence', pretokenizers: [...splits, { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }] });
const added = (id: number, content: string, flags: Json = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...flags });

function fastOf(json: Json, config: Json | null = null): FastBpeEncoder {
  const built = buildFastBpeEncoder(json, config);
  if ('refused' in built) throw new Error(built.refused);
  return built.encoder;
}

/** Texts on which the fast encoder differs from the JS library or (when installed) the binding. */
async function differences(json: Json, texts: readonly string[]): Promise<Array<{ text: string; fast: number[]; js: number[]; rust?: number[] }>> {
  const fast = fastOf(json);
  const lib = new Tokenizer(json, {});
  const native = binding?.Tokenizer.fromString(JSON.stringify(json)) ?? null;
  const out: Array<{ text: string; fast: number[]; js: number[]; rust?: number[] }> = [];
  for (const text of texts) {
    const f = fast.encode(text);
    const js = text === '' ? [] : lib.encode(text, { add_special_tokens: false }).ids;
    const rust = native ? (await native.encode(text, null, { addSpecialTokens: false })).getIds() : js;
    if (JSON.stringify(f) !== JSON.stringify(js) || JSON.stringify(f) !== JSON.stringify(rust)) out.push({ text, fast: f, js, rust });
  }
  return out;
}

describe('refused, with the reason', () => {
  const base = tokenizerJson(MERGES);
  const model = base.model as Json;
  const cases: Array<[string, Json, RegExp, Json?]> = [
    ['a Lowercase normalizer', { normalizer: { type: 'Lowercase' } }, /unsupported normalizer "Lowercase"/],
    ['an NFKC normalizer', { normalizer: { type: 'NFKC' } }, /unsupported normalizer "NFKC"/],
    ['NFC then Lowercase', { normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Lowercase' }] } }, /unsupported normalizer "Lowercase"/],
    ['no pre-tokenizer', { pre_tokenizer: null }, /not a byte-level tokenizer/],
    ['Metaspace', { pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true } }, /does not end with ByteLevel/],
    ['ByteLevel with add_prefix_space', { pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true } }, /add_prefix_space/],
    ['ByteLevel before a Split', { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'ByteLevel', add_prefix_space: false, use_regex: false }, QWEN_SPLIT] } }, /does not end with ByteLevel/],
    ['a Digits pre-tokenizer', { pre_tokenizer: splitThen({ type: 'Digits', individual_digits: true }) }, /unsupported pre-tokenizer "Digits"/],
    ['Split behavior Removed', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, behavior: 'Removed' }) }, /Split behavior "Removed"/],
    ['Split with invert', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, invert: true }) }, /invert/],
    ['a String split pattern', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { String: ' ' } }) }, /only Regex patterns/],
    ['\\d in a pattern', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: '\\d+' } }) }, /unsupported escape \\d/],
    ['a possessive quantifier', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: "[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+" } }) }, /lazy or possessive/],
    ['a lazy quantifier', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: '\\p{L}+?' } }) }, /lazy or possessive/],
    ['a lookbehind', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: '(?<=a)b' } }) }, /unsupported group/],
    ['a pattern matching the empty string', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: '\\p{L}*' } }) }, /can match the empty string/],
    ['a case-insensitive pair Oniguruma folds with a ligature', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: "(?i:'st)" } }) }, /ligature/],
    ['a script property', { pre_tokenizer: splitThen({ ...QWEN_SPLIT, pattern: { Regex: '\\p{Han}+' } }) }, /unsupported property "Han"/],
    ['a WordPiece model', { model: { ...model, type: 'WordPiece' } }, /is not BPE/],
    ['BPE dropout', { model: { ...model, dropout: 0.1 } }, /dropout/],
    ['byte_fallback', { model: { ...model, byte_fallback: true } }, /byte_fallback/],
    ['a continuing_subword_prefix', { model: { ...model, continuing_subword_prefix: '##' } }, /continuing_subword_prefix/],
    ['an end_of_word_suffix', { model: { ...model, end_of_word_suffix: '</w>' } }, /end_of_word_suffix/],
    ['an unknown model option', { model: { ...model, future_option: 1 } }, /unsupported options future_option/],
    ['a merge outside the vocab', { model: { ...model, merges: [...MERGES, 'x yz'] } }, /merge "x yz" has a part outside the vocab/],
    ['a byte missing from the vocab', { model: { ...model, vocab: Object.fromEntries(Object.entries(model.vocab as Json).filter(([t]) => t !== 'Ā')) } }, /lacks the byte-level token of byte 0/],
    ['an lstrip added token', { added_tokens: [added(400, '<x>', { lstrip: true })] }, /lstrip true/],
    ['an rstrip added token', { added_tokens: [added(400, '<x>', { rstrip: true })] }, /rstrip true/],
    ['a single_word added token', { added_tokens: [added(400, '<x>', { single_word: true })] }, /single_word true/],
    ['an added token id Rust would not give it', { added_tokens: [added(999, '<x>')] }, /has id 999 but the Rust library gives it/],
    ['an added token listed twice', { added_tokens: [added(269, '<x>'), added(270, '<x>')] }, /listed twice/],
    ['truncation', { truncation: { max_length: 8, strategy: 'LongestFirst', stride: 0, direction: 'Right' } }, /truncation or padding/],
    ['an unknown post-processor', { post_processor: { type: 'SomethingNew' } }, /unsupported post-processor "SomethingNew"/],
    ['remove_space in tokenizer_config', {}, /remove_space/, { remove_space: true }],
  ];
  for (const [name, change, reason, config] of cases) {
    it(name, () => {
      const built = buildFastBpeEncoder({ ...base, ...change }, config ?? null);
      expect('refused' in built ? built.refused : 'loaded').toMatch(reason);
    });
  }

  it('loads the unchanged tokenizer, and ids-neutral post-processors', () => {
    expect('encoder' in buildFastBpeEncoder(base)).toBe(true);
    const template = { type: 'TemplateProcessing', single: [], pair: [], special_tokens: {} };
    expect('encoder' in buildFastBpeEncoder({ ...base, post_processor: { type: 'Sequence', processors: [{ type: 'ByteLevel' }, template] } })).toBe(true);
  });
});

describe('same ids as the binding and the JS library', () => {
  const texts = ['', 'hello world', 'hello  world\n\n', 'abababababab', 'ab'.repeat(200), 'hello'.repeat(100), 'x'.repeat(3000), "he'll HE'LL he's", '1234 12 1', 'e\u0301 é', '  \u00a0 x'];

  it('GPT-2 ByteLevel split (use_regex), with Rust\'s \\s: U+0085 is space, U+FEFF is not', async () => {
    const json = tokenizerJson(MERGES);
    expect(await differences(json, [...texts, 'a \ufeffb', 'a\u0085\u0085 b', 'x \u0085\n y', '\ufeff\ufeff x'])).toEqual([]);
    if (binding) {
      const rust = binding.Tokenizer.fromString(JSON.stringify(json)).getPreTokenizer();
      for (const text of ['a \ufeffb', 'a  \u0085x', 'x \ufeff\ufeff y']) {
        expect(fastOf(json).preTokens(text).map(toByteLevel)).toEqual(rust.preTokenizeString(text).map((p) => p[0]));
      }
    }
  });

  it('ignore_merges: a pre-token in the vocab is one token, whatever the merges; without it, the merges decide', async () => {
    for (const ignore of [true, false]) {
      const json = tokenizerJson(MERGES, { vocab: ['world', 'Ġworld'], model: { ignore_merges: ignore } });
      expect(await differences(json, [...texts, 'world world worlds'])).toEqual([]);
      const id = (json.model as { vocab: Record<string, number> }).vocab.Ġworld;
      expect(fastOf(json).encode(' world').includes(id)).toBe(ignore);
    }
  });

  it('a merge listed twice keeps its later rank; merges as [a, b] pairs read the same', async () => {
    const merges = ['a b', 'b c', 'a b'];
    const json = tokenizerJson(merges);
    expect(await differences(json, ['abc', 'abcabc', 'ab'])).toEqual([]);
    const pairs = tokenizerJson(merges, { model: { merges: merges.map((m) => m.split(' ')) } });
    expect(fastOf(pairs).encode('abc abcab')).toEqual(fastOf(json).encode('abc abcab'));
  });

  it('added tokens: raw ones first, then normalized ones in the NFC text, leftmost-longest', async () => {
    const json = tokenizerJson(MERGES, {
      top: {
        normalizer: { type: 'NFC' },
        pre_tokenizer: splitThen(QWEN_SPLIT),
        added_tokens: [added(269, '<|a|>'), added(270, '<|a|><|b|>'), added(271, 'cd'), added(272, '\u00e9t\u00e9', { normalized: true, special: false }), added(273, 'bc', { normalized: true, special: false })],
      },
    });
    const cases = ['<|a|><|b|>x<|a|>', '<|a|<|a|>>', 'bcd', 'abcd', 'e\u0301te\u0301 ete\u0301', '\u00e9t\u00e9<|a|>e\u0301', 'xbcx', 'bc<|a|>cd'];
    expect(await differences(json, cases)).toEqual([]);
    // The raw "cd" is split out before the normalized "bc" is looked for.
    expect(fastOf(json).encode('bcd')).toEqual([ALPHABET.indexOf('b'), 271]);
    expect(fastOf(json).encode('e\u0301te\u0301')).toEqual([272]);
  });

  it('long words (the heap path) and a word cache that fills up and is emptied', async () => {
    const json = tokenizerJson(MERGES);
    const rand = rng(3);
    const words = Array.from({ length: 60_000 }, () => {
      let w = ' ';
      for (let i = 0; i < 3 + Math.floor(rand() * 6); i++) w += 'abehlorw'[Math.floor(rand() * 8)];
      return w;
    });
    const fast = fastOf(json);
    const lib = new Tokenizer(json, {});
    // Past 50k distinct words the cache is emptied; the ids must not change across that.
    const first = words.slice(0, 500).join('');
    const before = fast.encode(first);
    fast.encode(words.join(''));
    expect(fast.encode(first)).toEqual(before);
    expect(before).toEqual(lib.encode(first, { add_special_tokens: false }).ids);
    const long = Array.from({ length: 20 }, (_, i) => 'ab'.repeat(30 + i * 37) + 'hello'.repeat(i) + 'ba'.repeat(i));
    expect(await differences(json, long)).toEqual([]);
  });
});
