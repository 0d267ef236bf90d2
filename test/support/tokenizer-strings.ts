/**
 * Seeded strings for differential tokenizer tests: random code points from every script a BPE
 * treats differently, code, CJK and emoji text, special-token text (whole, glued, truncated), edge
 * whitespace, and long prompts. Deterministic for a seed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FRAGMENTS, pick, randomText, rng } from '../fixtures/pipeline-random.js';

/** [first, last] code point ranges and their weights. */
const RANGES: Array<[number, number, number]> = [
  [0x20, 0x7e, 30], // ASCII printable
  [0x09, 0x0d, 4], // \t \n \v \f \r
  [0x00, 0x1f, 1], // controls
  [0xa0, 0xff, 4], // Latin-1
  [0x100, 0x24f, 3], // Latin extended
  [0x300, 0x36f, 4], // combining marks (NFC composes some of them)
  [0x370, 0x3ff, 2], // Greek
  [0x400, 0x4ff, 3], // Cyrillic
  [0x590, 0x6ff, 2], // Hebrew, Arabic
  [0x900, 0x97f, 2], // Devanagari
  [0xe00, 0xe7f, 1], // Thai
  [0x1100, 0x11ff, 1], // Hangul jamo (NFC composes them)
  [0x2000, 0x206f, 3], // general punctuation, zero-width and bidi marks
  [0x2070, 0x2bff, 2], // super/subscripts, symbols, arrows
  [0x3000, 0x30ff, 4], // CJK punctuation, kana
  [0x4e00, 0x9fff, 8], // CJK ideographs
  [0xac00, 0xd7a3, 3], // Hangul syllables
  [0xd800, 0xdfff, 1], // lone surrogates (JSON bodies can carry them)
  [0xe000, 0xf8ff, 1], // private use
  [0xfe00, 0xfe0f, 1], // variation selectors
  [0xff00, 0xffef, 2], // full-width forms (NFKC would change them, NFC must not)
  [0xfff0, 0xffff, 1], // specials, U+FFFD, noncharacters
  [0x1d400, 0x1d7ff, 1], // math alphanumerics
  [0x1f000, 0x1faff, 6], // emoji and pictographs
  [0x1f3fb, 0x1f3ff, 1], // skin tones
  [0x20000, 0x2a6df, 1], // CJK extension B
  [0xe0000, 0xe007f, 1], // tags
];
const TOTAL = RANGES.reduce((n, r) => n + r[2], 0);

function randomCodePoint(rand: () => number): string {
  let w = rand() * TOTAL;
  for (const [lo, hi, weight] of RANGES) {
    if ((w -= weight) <= 0) {
      const cp = lo + Math.floor(rand() * (hi - lo + 1));
      return cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
  }
  return 'x';
}

export function randomUnicode(rand: () => number, maxChars: number): string {
  const n = 1 + Math.floor(rand() * maxChars);
  let s = '';
  for (let i = 0; i < n; i++) s += randomCodePoint(rand);
  return s;
}

const WHITESPACE = [' ', '  ', '    ', '\t', '\n', '\n\n', '\r\n', ' \n ', '\u00a0', '\u3000', '\u2028', '\u200b', '\ufeff'];
const CJK_EMOJI = [
  '你好，世界！',
  '今天天气很好。',
  '日本語のテキストです。',
  'カタカナとひらがな',
  '한국어 문장입니다.',
  '👋🏽',
  '👨‍👩‍👧‍👦',
  '🇫🇷🇯🇵',
  '❤️‍🔥',
  '✅',
  '𠜎𠜱',
  '（全角）',
  '「引用」',
];

function sourceText(root: string): string {
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.ts')) parts.push(readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(join(root, 'src'));
  return parts.join('\n');
}

export interface StringSets {
  unicode: string[];
  code: string[];
  cjkEmoji: string[];
  specialText: string[];
  edges: string[];
  long: string[];
}

/**
 * `specials` are the tokenizer's special/added token strings; `root` the repository (its src/ is
 * the code corpus). `scale` multiplies the counts (1 → about 3,300 strings).
 */
export function differentialStrings(seed: number, specials: readonly string[], root: string, scale = 1): StringSets {
  const rand = rng(seed);
  const code = sourceText(root);
  const slice = (maxLen: number) => {
    const len = 1 + Math.floor(rand() * maxLen);
    const at = Math.floor(rand() * (code.length - len));
    return code.slice(at, at + len);
  };
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const withSpecials = () => {
    let s = '';
    const parts = 1 + Math.floor(rand() * 8);
    for (let i = 0; i < parts; i++) {
      const r = rand();
      const token = pick(rand, specials);
      if (r < 0.35) s += token;
      // A truncated or mangled token must stay plain text.
      else if (r < 0.45) s += token.slice(0, 1 + Math.floor(rand() * (token.length - 1)));
      else if (r < 0.5) s += token.slice(1);
      else if (r < 0.55) s += token.toUpperCase();
      else if (r < 0.75) s += randomText(rand, 1, 4);
      else if (r < 0.9) s += pick(rand, WHITESPACE);
      else s += slice(40);
    }
    return s;
  };
  const cjkEmoji = () => {
    let s = '';
    const parts = 1 + Math.floor(rand() * 12);
    for (let i = 0; i < parts; i++) s += rand() < 0.6 ? pick(rand, CJK_EMOJI) : rand() < 0.5 ? pick(rand, FRAGMENTS) : pick(rand, WHITESPACE);
    return s;
  };
  const edges = [
    '',
    ' ',
    '\n',
    '\n\n\n\n',
    '\t\t',
    ' \t \n \r\n ',
    'a'.repeat(5000),
    ' '.repeat(3000),
    '\n'.repeat(500),
    '!'.repeat(777),
    '1234567890'.repeat(100),
    '😀'.repeat(400),
    '中'.repeat(1500),
    'e\u0301'.repeat(300),
    "'s 't 're 've 'm 'll 'd 'S 'T",
    ...specials,
    specials.join(''),
    specials.join(' '),
    ...WHITESPACE,
    ...Array.from({ length: count(60) }, () => Array.from({ length: 1 + Math.floor(rand() * 30) }, () => pick(rand, WHITESPACE)).join('')),
  ];
  const long = Array.from({ length: count(40) }, () => {
    let s = '';
    const target = 4000 + Math.floor(rand() * 60_000);
    while (s.length < target) {
      const r = rand();
      s += r < 0.6 ? slice(3000) : r < 0.75 ? cjkEmoji() : r < 0.9 ? withSpecials() : randomUnicode(rand, 200);
    }
    return s;
  });
  return {
    unicode: Array.from({ length: count(1200) }, () => randomUnicode(rand, rand() < 0.8 ? 24 : 400)),
    code: Array.from({ length: count(800) }, () => slice(rand() < 0.8 ? 300 : 4000)),
    cjkEmoji: Array.from({ length: count(500) }, cjkEmoji),
    specialText: Array.from({ length: count(600) }, withSpecials),
    edges,
    long,
  };
}
