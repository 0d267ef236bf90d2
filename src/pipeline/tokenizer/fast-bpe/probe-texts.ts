/**
 * Texts a second encoder must encode exactly as the event loop's tokenizer does before it is
 * trusted (the fast encoder at load, a prompt worker before it takes jobs): scripts,
 * normalisation cases, whitespace runs, and every special token next to text. They guard against
 * an encoder reading a tokenizer.json differently from the JS library. Shared by
 * prompt-pool/probes.ts and verify.ts.
 */
export const PARITY_SAMPLES: readonly string[] = [
  'Hello, world! The quick brown fox jumps over the lazy dog.',
  "  leading spaces, trailing spaces   \n\n\n tabs\t\there\r\nand CRLF\r\n",
  'function add(a: number, b: number): number {\n    return a + b; // 42\n}\n\tconst x = [1, 2, 3].map((n) => n ** 2);',
  '1234567890 3.14159 1e-9 0x1F 10,000,000',
  '你好，世界。今天天气很好！日本語のテキスト、カタカナ。한국어 문장입니다.',
  'مرحبا بالعالم — Привет, мир — Γειά σου Κόσμε — שלום',
  'emoji 👋🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ ✅',
  // Decomposed accents: NFC normalizers compose them before BPE.
  'e\u0301 a\u0308 n\u0303 Å Å ﬁ ｆｕｌｌ ｗｉｄｔｈ',
  '\u00a0non-breaking\u2009thin\u200bzero-width\ufeffbom',
  "I'm you're we'll they've it's DON'T",
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!!!!!!!!!!!!!!!??????',
  '<|fake_token|> <tag>x</tag> <<>> {{ template }} {% raw %}',
];

/** A special token glued to text, after a space, after a newline and to itself. */
export function specialTokenProbe(token: string): string {
  return `x${token}y ${token}\n${token}${token} z`;
}
