/**
 * Hand-written for speed (see encoder.ts): runs the pre-tokenizer patterns on an all-ASCII
 * "shadow" of the text instead of the text itself. V8 matches the Unicode patterns (`\p{L}`,
 * `\p{White_Space}` … in `u` mode) at ~250 ns per pre-token, and the same patterns cut down to
 * ASCII classes, without `u`, at ~60 ns: the split costs more than everything else together.
 *
 * Why the splits are the same: a pattern only ever tests one code point at a time against one of
 * its one-character sets (literals and classes; lookaheads test sets too). Two code points that
 * belong to exactly the same sets of all the patterns (the same "signature") are
 * indistinguishable to every pattern. The shadow replaces each non-ASCII code point by an ASCII
 * character of the same signature (one UTF-16 unit per code point, so a surrogate pair becomes
 * one character and offsets are mapped back), and each pattern is rewritten with every set
 * replaced by its ASCII members. Every test the original pattern makes on the text then has the
 * same outcome as the rewritten one on the shadow, so both find the same matches at the same
 * (mapped) offsets. A text holding a code point with no ASCII look-alike (gpt-oss's Lo letters and
 * marks, DeepSeek-V3's non-ASCII letters and punctuation) has no shadow: the caller then runs the
 * original patterns on the text itself.
 */

const NON_ASCII = /[^\x00-\x7f]/;
const UNKNOWN = 0;
const NO_LOOKALIKE = -1;

function asciiClass(members: number[]): string {
  let out = '';
  for (let i = 0; i < members.length; ) {
    let j = i;
    while (j + 1 < members.length && members[j + 1] === members[j] + 1) j++;
    const hex = (c: number) => `\\x${c.toString(16).padStart(2, '0')}`;
    out += j > i ? `${hex(members[i])}-${hex(members[j])}` : hex(members[i]);
    i = j + 1;
  }
  return `[${out}]`;
}

export interface ShadowPattern {
  sets: readonly string[];
  emit: (map: (setSource: string) => string) => string;
}

export class AsciiShadow {
  /** Per pattern: the ASCII rewrite, sticky (one match at lastIndex) and global (search). */
  readonly sticky: RegExp[];
  readonly global: RegExp[];
  /** Shadow offset → text offset for the last shadow built, or null when they are equal. */
  map: Int32Array | null = null;
  private readonly setTests: RegExp[];
  private readonly lookalike = new Map<string, number>();
  private readonly bmp = new Int16Array(65536);
  private readonly astral = new Map<number, number>();
  private bytes = Buffer.alloc(1024);
  private offsets = new Int32Array(1024);

  constructor(patterns: readonly ShadowPattern[]) {
    const sets = [...new Set(patterns.flatMap((p) => p.sets))];
    this.setTests = sets.map((s) => new RegExp(`^(?:${s})$`, 'u'));
    const ascii = new Map<string, string>();
    sets.forEach((set, k) => {
      const members: number[] = [];
      for (let c = 0; c < 128; c++) if (this.setTests[k].test(String.fromCharCode(c))) members.push(c);
      ascii.set(set, asciiClass(members));
    });
    for (let c = 127; c >= 0; c--) {
      this.lookalike.set(this.signature(String.fromCharCode(c)), c);
      this.bmp[c] = c + 1;
    }
    const sources = patterns.map((p) => p.emit((set) => ascii.get(set) as string));
    this.sticky = sources.map((s) => new RegExp(s, 'y'));
    this.global = sources.map((s) => new RegExp(s, 'g'));
  }

  private signature(char: string): string {
    let key = '';
    for (const t of this.setTests) key += t.test(char) ? '1' : '0';
    return key;
  }

  /** The ASCII look-alike of a code point, or NO_LOOKALIKE. */
  private lookalikeOf(cp: number): number {
    if (cp < 0x10000) {
      const known = this.bmp[cp];
      if (known !== UNKNOWN) return known > 0 ? known - 1 : NO_LOOKALIKE;
    } else {
      const known = this.astral.get(cp);
      if (known !== undefined) return known;
    }
    const c = this.lookalike.get(this.signature(String.fromCodePoint(cp))) ?? NO_LOOKALIKE;
    if (cp < 0x10000) this.bmp[cp] = c >= 0 ? c + 1 : NO_LOOKALIKE;
    else this.astral.set(cp, c);
    return c;
  }

  /**
   * The shadow of `text` (itself when it is ASCII), setting `map`; null when some code point has
   * no look-alike. A lone surrogate is one code point, as the `u` patterns see it.
   */
  shadow(text: string): string | null {
    this.map = null;
    if (!NON_ASCII.test(text)) return text;
    const n = text.length;
    if (this.bytes.length < n) {
      this.bytes = Buffer.alloc(n * 2);
      this.offsets = new Int32Array(n * 2 + 1);
    }
    const bytes = this.bytes;
    const offsets = this.offsets;
    let mapped = false;
    let j = 0;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        offsets[j] = i;
        bytes[j++] = c;
        continue;
      }
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      }
      const a = this.lookalikeOf(cp);
      if (a < 0) return null;
      offsets[j] = i;
      bytes[j++] = a;
      if (cp > 0xffff) {
        i++;
        mapped = true;
      }
    }
    offsets[j] = n;
    if (mapped) this.map = offsets;
    return bytes.toString('latin1', 0, j);
  }
}
