/**
 * Seeded strings aimed at the places a byte-level BPE encoder can go wrong (fast-bpe tests):
 * prose, code, digit runs, every kind of whitespace run, contractions in every case (and the long
 * s that Oniguruma folds into them), scripts with different letter categories, emoji sequences,
 * combining marks NFC composes, each added token next to text and to other added tokens, chat
 * prompts, very long words. Deterministic for a seed.
 */
import { pick, rng } from '../fixtures/pipeline-random.js';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were ' +
  'her she there been one all we their has would when if so no will more out up said what its about into than them can ' +
  'only other time new some could these two may first then do any like my now over such our man me even most made after ' +
  'tokenizer gateway prompt encode decode merge vocabulary inference latency throughput deterministic'
).split(' ');
const CODE = [
  'function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'const xs = [1, 2, 3].map((n) => n ** 2); // squares\n',
  'if (err !== null && err.code === "ENOENT") { throw new Error(`missing ${path}`); }\n',
  'def main(argv):\n\tfor i in range(10):\n\t\tprint(f"{i:>4}")\n',
  '<div class="row">\n  <span id=\'x\'>&amp;</span>\n</div>\n',
  'SELECT id, name FROM users WHERE age >= 18 ORDER BY name;\r\n',
  '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); }\n',
  '    x += 1\n        y -= 2\n\n\n',
  '{"key": [true, false, null], "n": -1.5e+10}',
];
const WHITESPACE = [' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', '\r', ' \n', '\n ', '\u00a0', '\u2009', '\u3000', '\ufeff', '\u2028', '\u2029', '\u0085', '\u200b', '\u000b', '\u000c', '\u1680', '\u202f'];
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'LL", "'lL", "'D", "'ſ", "'ſt", "'K", "'\u212a", "'ß", "'ﬆ", "’s", "''s", "'x"];
const SCRIPTS = [
  '你好，世界！今天天气很好。',
  '日本語のテキスト、カタカナとひらがな。',
  '한국어 문장입니다.',
  'مرحبا بالعالم، كيف حالك؟',
  'Привет, мир! Ёжик в тумане.',
  'Γειά σου Κόσμε',
  'שלום עולם',
  'नमस्ते दुनिया',
  'สวัสดีชาวโลก',
  'ǅemal ǈjudevit Ǳ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝',
  '𠜎𠜱𡃁',
  '²³¹ ¼½ ٣٤٥ ๓๔',
  '① Ⅻ ⅻ',
  'ＡＢＣ１２３（全角）',
];
const EMOJI = ['👋', '👋🏽', '👨‍👩‍👧‍👦', '🧑🏿‍🚀', '🇫🇷', '🇯🇵🇺🇸', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '❤️', '❤️‍🔥', '✅', '1️⃣', '#️⃣', '🫨', '\u200d', '\ufe0f'];
const COMBINING = ['e\u0301', 'a\u0308', 'n\u0303', 'A\u030a', 'o\u0302\u0323', '\u1100\u1161\u11a8', 'ᄀ', '\u0301', 'x\u0301\u0301', 'ﬁ', 'Å', 'Ω', '\u0958', 'e\u0301\u0327'];

function word(rand: () => number): string {
  const r = rand();
  if (r < 0.7) return pick(rand, WORDS);
  if (r < 0.8) return pick(rand, WORDS).toUpperCase();
  if (r < 0.9) {
    const w = pick(rand, WORDS);
    return w[0].toUpperCase() + w.slice(1);
  }
  let s = '';
  const n = 2 + Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
  return s;
}

function digits(rand: () => number): string {
  let s = '';
  const n = 1 + Math.floor(rand() * (rand() < 0.2 ? 80 : 8));
  for (let i = 0; i < n; i++) s += String(Math.floor(rand() * 10));
  return rand() < 0.2 ? `${s}.${Math.floor(rand() * 1000)}` : s;
}

/** One fragment of a mixed text. */
function fragment(rand: () => number, added: readonly string[]): string {
  const r = rand();
  if (r < 0.3) return `${rand() < 0.7 ? ' ' : ''}${word(rand)}`;
  if (r < 0.4) return pick(rand, WHITESPACE).repeat(1 + Math.floor(rand() * 3));
  if (r < 0.47) return pick(rand, CONTRACTIONS);
  if (r < 0.54) return digits(rand);
  if (r < 0.61) return pick(rand, SCRIPTS);
  if (r < 0.68) return pick(rand, EMOJI);
  if (r < 0.74) return pick(rand, COMBINING);
  if (r < 0.8) return pick(rand, CODE);
  if (r < 0.88 && added.length > 0) return pick(rand, added);
  if (r < 0.92 && added.length > 0) {
    const t = pick(rand, added);
    return t.slice(0, 1 + Math.floor(rand() * Math.max(1, t.length - 1)));
  }
  return pick(rand, ['.', ',', '!', '?', '...', ' -- ', ' — ', '“quoted”', '(', ')', '[', ']', '{', '}', '/', '\\', '<', '>', '<<', '>>', '|', '`', '~', '@', '#', '$', '%', '^', '&', '*', '_', '=', '+', ';', ':', '"', "'"]);
}

export interface FastBpeStringSets {
  mixed: string[];
  whitespace: string[];
  addedAdjacent: string[];
  longWords: string[];
  chat: string[];
}

/**
 * `added` are the tokenizer's added-token strings; `render` renders a conversation with the model's
 * chat template (null when it has none). `scale` multiplies the counts (1 → about 2,000 strings
 * plus four per added token).
 */
export function fastBpeStrings(
  seed: number,
  added: readonly string[],
  render: ((messages: Array<{ role: string; content: string }>) => string) | null,
  scale = 1,
): FastBpeStringSets {
  const rand = rng(seed);
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const mixed = (maxParts: number) => {
    let s = '';
    const n = 1 + Math.floor(rand() * maxParts);
    for (let i = 0; i < n; i++) s += fragment(rand, added);
    return s;
  };
  const addedAdjacent: string[] = [];
  added.forEach((t, i) => {
    const next = added[(i + 1) % added.length];
    addedAdjacent.push(`x${t}y`, `${t}${t}`, ` ${t} ${next}\n`, `${t}${next}${word(rand)}${t.slice(0, -1)}`);
  });
  const whitespace = Array.from({ length: count(300) }, () => {
    let s = rand() < 0.5 ? word(rand) : '';
    const n = 1 + Math.floor(rand() * 10);
    for (let i = 0; i < n; i++) s += pick(rand, WHITESPACE);
    return rand() < 0.6 ? s + word(rand) : s;
  });
  const longWords = [
    '',
    'a'.repeat(3000),
    'ab'.repeat(1500),
    '9'.repeat(2000),
    ' '.repeat(1000) + 'x',
    '\n'.repeat(300) + ' ',
    '!?'.repeat(700),
    'é'.repeat(800),
    '中'.repeat(900),
    '👍'.repeat(300),
    // Around the length where merging switches from rescanning to a heap (merge.ts, 64 bytes).
    ...Array.from({ length: 30 }, (_, i) => {
      let s = ' ';
      for (let k = 0; k < 50 + i; k++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
      return s;
    }),
    ...Array.from({ length: 10 }, (_, i) => 'é'.repeat(28 + i)),
    ...Array.from({ length: count(20) }, () => {
      let s = '';
      const n = 200 + Math.floor(rand() * 3000);
      for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
      return s;
    }),
  ];
  const chat: string[] = [];
  if (render) {
    for (let i = 0; i < count(120); i++) {
      const messages: Array<{ role: string; content: string }> = [];
      if (rand() < 0.5) messages.push({ role: 'system', content: mixed(6) });
      const turns = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < turns; k++) {
        messages.push({ role: 'user', content: mixed(rand() < 0.2 ? 60 : 8) });
        if (k < turns - 1) messages.push({ role: 'assistant', content: mixed(10) });
      }
      try {
        chat.push(render(messages));
      } catch {
        // A template that rejects this shape of conversation: the others still count.
      }
    }
  }
  return {
    mixed: Array.from({ length: count(1500) }, () => mixed(rand() < 0.9 ? 12 : 120)),
    whitespace,
    addedAdjacent,
    longWords,
    chat,
  };
}
