/**
 * Hand-written for speed (see encoder.ts): translates the pre-tokenizer patterns of tokenizer.json
 * into JavaScript `u`-flag regular expressions that split text exactly as the Rust `tokenizers`
 * library does, so the fast encoder can use V8's compiled regexes.
 *
 * Rust `tokenizers` compiles these patterns with Oniguruma (its `SysRegex`, Ruby syntax), and a
 * few constructs mean something else in JS:
 * - `\s` is Unicode White_Space in Oniguruma; JS `\s` adds U+FEFF and leaves out U+0085. Both
 *   `\s` and `\S` become `\p{White_Space}` / `\P{White_Space}` (checked against the binding:
 *   "a  \u0085x" splits as ["a", "  ", "\u0085x"]).
 * - `(?i:…)` (Node 20's V8 has no modifier groups) folds case with Unicode simple case folding:
 *   `s` also matches U+017F LATIN SMALL LETTER LONG S and `k` U+212A KELVIN SIGN (CaseFolding.txt
 *   `017F; C; 0073`, `212A; C; 006B`; the binding splits "x'ſx" as ["x", "'ſ", "x"]). Oniguruma
 *   also folds multi-character sequences (ß ↔ ss, ﬆ ↔ st, ﬁ ↔ fi …), so a case-insensitive body
 *   holding such a pair is refused. Only literal ASCII letters and non-letters may appear there.
 * - Quantifiers followed by `+` (possessive in Ruby syntax) or `?` (lazy) are refused, as are
 *   anchors, `.`, `\d`/`\w`/`\b`, back-references, lookbehind, nested classes and `&&`.
 * Anything not understood is refused (the loader then refuses the tokenizer), never guessed.
 * A pattern that can match the empty string is refused too: Oniguruma and JS step over empty
 * matches differently.
 */

export type Translation = { ok: true; source: string; sets: string[]; emit: (map: SetMapper) => string } | { ok: false; reason: string };

/** General categories, accepted case-insensitively as Oniguruma does. */
const CATEGORIES = new Map(
  ['L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'M', 'Mn', 'Mc', 'Me', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'S', 'Sm', 'Sc', 'Sk', 'So', 'Z', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Co'].map(
    (name) => [name.toLowerCase(), name],
  ),
);

/** Non-ASCII code points whose simple case folding is an ASCII letter (CaseFolding.txt). */
const EXTRA_FOLDS: Record<string, number[]> = { s: [0x17f], k: [0x212a] };
/** ASCII pairs some character folds to (ß→ss, ﬆ/ﬅ→st, ﬀ→ff, ﬁ→fi, ﬂ→fl): refused under (?i:). */
const MULTI_FOLD_PAIRS = ['ss', 'st', 'ff', 'fi', 'fl'];

const CONTROL_ESCAPES: Record<string, number> = { r: 0x0d, n: 0x0a, t: 0x09, f: 0x0c, v: 0x0b };

class Refusal extends Error {}

function hexCode(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** A code point as a JS regex atom (outside or inside a class). */
function literal(cp: number): string {
  const c = String.fromCodePoint(cp);
  return /^[A-Za-z0-9 _'"!#%&,:;<>=@`~]$/.test(c) ? c : hexCode(cp);
}

/** Maps the JS source of a one-character set to the source emitted for it. */
export type SetMapper = (setSource: string) => string;

interface Piece {
  emit: (map: SetMapper) => string;
  nullable: boolean;
  /** Lookarounds cannot be quantified in `u` mode. */
  quantifiable: boolean;
  /** One character's match (literal, class, property): quantified without a wrapping group. */
  single?: boolean;
}

class Parser {
  private i = 0;
  private fold = false;
  /** Every one-character set of the pattern, by its JS source. */
  readonly sets = new Set<string>();

  constructor(private readonly src: string) {}

  parse(): Piece {
    const p = this.alternation();
    if (this.i < this.src.length) throw new Refusal(`unexpected ${JSON.stringify(this.src[this.i])} at ${this.i}`);
    return p;
  }

  private peek(k = 0): string | undefined {
    return this.src[this.i + k];
  }

  private set(source: string): Piece {
    this.sets.add(source);
    return { emit: (map) => map(source), nullable: false, quantifiable: true, single: true };
  }

  private alternation(): Piece {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0];
    return {
      emit: (map) => branches.map((b) => b.emit(map)).join('|'),
      nullable: branches.some((b) => b.nullable),
      quantifiable: true,
    };
  }

  private sequence(): Piece {
    const items: Piece[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.quantified());
    return {
      emit: (map) => items.map((p) => p.emit(map)).join(''),
      nullable: items.every((p) => p.nullable),
      quantifiable: true,
    };
  }

  private quantified(): Piece {
    const atom = this.atom();
    const c = this.peek();
    let min: number;
    let text: string;
    if (c === '?' || c === '*' || c === '+') {
      this.i++;
      min = c === '+' ? 1 : 0;
      text = c;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) throw new Refusal(`a literal '{' at ${this.i}`);
      this.i += m[0].length;
      min = Number(m[1]);
      if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < min) throw new Refusal(`bad repeat at ${this.i}`);
      text = m[0];
    } else {
      return atom;
    }
    if (this.fold) throw new Refusal('quantifier under (?i:)');
    const after = this.peek();
    if (after === '?' || after === '+') throw new Refusal(`lazy or possessive quantifier at ${this.i}`);
    if (!atom.quantifiable) throw new Refusal(`quantified lookaround at ${this.i}`);
    return {
      emit: (map) => (atom.single ? atom.emit(map) : `(?:${atom.emit(map)})`) + text,
      nullable: min === 0 || atom.nullable,
      quantifiable: true,
    };
  }

  private atom(): Piece {
    const c = this.peek() as string;
    if (c === '(') return this.group();
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    if ('.^$)]{}?*+'.includes(c)) throw new Refusal(`unsupported ${JSON.stringify(c)} at ${this.i}`);
    const cp = this.src.codePointAt(this.i) as number;
    this.i += cp > 0xffff ? 2 : 1;
    return this.set(this.literalAtom(cp));
  }

  /** A literal, expanded to its case-fold class inside (?i:…). */
  private literalAtom(cp: number): string {
    if (!this.fold) return literal(cp);
    const c = String.fromCodePoint(cp);
    if (/^[A-Za-z]$/.test(c)) {
      const lower = c.toLowerCase();
      const cps = [lower.codePointAt(0) as number, lower.toUpperCase().codePointAt(0) as number, ...(EXTRA_FOLDS[lower] ?? [])];
      return `[${cps.map(literal).join('')}]`;
    }
    if (cp < 0x80) return literal(cp);
    throw new Refusal(`non-ASCII ${JSON.stringify(c)} under (?i:)`);
  }

  private group(): Piece {
    const rest = this.src.slice(this.i);
    const head = /^\((\?[:=!]|\?i:)?/.exec(rest) as RegExpExecArray;
    if (rest.startsWith('(?') && head[1] === undefined) throw new Refusal(`unsupported group ${JSON.stringify(rest.slice(0, 4))} at ${this.i}`);
    this.i += head[0].length;
    const kind = head[1] ?? '';
    const outerFold = this.fold;
    if (outerFold) throw new Refusal('group under (?i:)');
    if (kind === '?i:') {
      const close = this.src.indexOf(')', this.i);
      const body = this.src.slice(this.i, close < 0 ? undefined : close).toLowerCase();
      const pair = MULTI_FOLD_PAIRS.find((p) => body.includes(p));
      if (pair) throw new Refusal(`(?i:) body with ${JSON.stringify(pair)}, which Oniguruma folds with a ligature`);
      this.fold = true;
    }
    const body = this.alternation();
    this.fold = outerFold;
    if (this.peek() !== ')') throw new Refusal('unclosed group');
    this.i++;
    if (kind === '?=' || kind === '?!') return { emit: (map) => `(${kind}${body.emit(map)})`, nullable: true, quantifiable: false };
    return { emit: (map) => `(?:${body.emit(map)})`, nullable: body.nullable, quantifiable: true };
  }

  /** `\p{…}`, `\P{…}`, `\s`, `\S` at this.i (after the backslash) as a set, or null. */
  private setEscape(): string | null {
    const c = this.peek();
    if (c === 's' || c === 'S') {
      this.i++;
      return c === 's' ? '\\p{White_Space}' : '\\P{White_Space}';
    }
    if (c !== 'p' && c !== 'P') return null;
    const m = /^[pP]\{(\^?)([A-Za-z_ ]+)\}/.exec(this.src.slice(this.i));
    if (!m) throw new Refusal(`unsupported property escape at ${this.i}`);
    const name = CATEGORIES.get(m[2].replace(/[ _]/g, '').toLowerCase());
    if (!name) throw new Refusal(`unsupported property ${JSON.stringify(m[2])}`);
    this.i += m[0].length;
    const negated = (c === 'P') !== (m[1] === '^');
    return `\\${negated ? 'P' : 'p'}{${name}}`;
  }

  /** A single-character escape at this.i (after the backslash): its code point. */
  private charEscape(): number {
    const c = this.peek() as string | undefined;
    if (c === undefined) throw new Refusal('trailing backslash');
    if (c in CONTROL_ESCAPES) {
      this.i++;
      return CONTROL_ESCAPES[c];
    }
    const hex = /^(?:x\{([0-9A-Fa-f]{1,6})\}|x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4}))/.exec(this.src.slice(this.i));
    if (hex) {
      this.i += hex[0].length;
      const cp = parseInt(hex[1] ?? hex[2] ?? hex[3], 16);
      if (cp > 0x10ffff) throw new Refusal('code point out of range');
      return cp;
    }
    if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(c)) {
      this.i++;
      return c.charCodeAt(0);
    }
    throw new Refusal(`unsupported escape \\${c}`);
  }

  private escape(): Piece {
    if (this.fold) throw new Refusal('escape under (?i:)');
    this.i++;
    const set = this.setEscape();
    return this.set(set ?? this.literalAtom(this.charEscape()));
  }

  private charClass(): Piece {
    if (this.fold) throw new Refusal('class under (?i:)');
    const start = this.i;
    this.i++;
    let out = '[';
    if (this.peek() === '^') {
      out += '^';
      this.i++;
    }
    if (this.peek() === ']') throw new Refusal(`']' first in a class at ${start}`);
    let items = 0;
    while (this.peek() !== ']') {
      if (this.i >= this.src.length) throw new Refusal(`unclosed class at ${start}`);
      if (this.peek() === '[') throw new Refusal(`nested class at ${this.i}`);
      if (this.peek() === '&' && this.peek(1) === '&') throw new Refusal(`class intersection at ${this.i}`);
      if (this.peek() === '\\') {
        this.i++;
        const set = this.setEscape();
        if (set !== null) {
          if (this.peek() === '-' && this.peek(1) !== ']') throw new Refusal(`range from a set at ${this.i}`);
          out += set;
          items++;
          continue;
        }
        this.i--;
      }
      const from = this.classChar();
      if (this.peek() === '-' && this.peek(1) !== ']') {
        this.i++;
        if (this.peek() === '\\' && /[sSpP]/.test(this.peek(1) ?? '')) throw new Refusal(`range to a set at ${this.i}`);
        const to = this.classChar();
        if (to < from) throw new Refusal(`reversed range at ${this.i}`);
        out += `${hexCode(from)}-${hexCode(to)}`;
      } else {
        out += hexCode(from);
      }
      items++;
    }
    this.i++;
    if (items === 0) throw new Refusal(`empty class at ${start}`);
    return this.set(`${out}]`);
  }

  /** One character of a class (literal or single-character escape). */
  private classChar(): number {
    if (this.peek() === '\\') {
      this.i++;
      return this.charEscape();
    }
    const cp = this.src.codePointAt(this.i) as number;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }
}

/**
 * The JS source (for `new RegExp(source, 'gu')`) of an Oniguruma pattern, its one-character sets,
 * and `emit` to write it again with each set replaced (ascii-shadow.ts); or why not.
 */
export function translateOnigPattern(pattern: string): Translation {
  let piece: Piece;
  const parser = new Parser(pattern);
  try {
    piece = parser.parse();
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: `pattern ${JSON.stringify(pattern)}: ${err.message}` };
    throw err;
  }
  if (piece.nullable) return { ok: false, reason: `pattern ${JSON.stringify(pattern)} can match the empty string` };
  const source = piece.emit((set) => set);
  try {
    new RegExp(source, 'gu');
  } catch (err) {
    return { ok: false, reason: `pattern ${JSON.stringify(pattern)}: ${(err as Error).message}` };
  }
  return { ok: true, source, sets: [...parser.sets], emit: piece.emit };
}

/**
 * The split pattern ByteLevel applies itself when `use_regex` is true (huggingface/tokenizers,
 * tokenizers/src/pre_tokenizers/byte_level.rs, `RE`), compiled there with Oniguruma as well.
 */
export const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
