/**
 * FastBpeEncoder: text → token ids for byte-level BPE tokenizers, hand-written for speed. The Rust
 * binding and the JS library both build a full Encoding per call (offsets, masks, token strings,
 * one object per pre-token) and cost ~3–4 µs per token and ~70 µs per short chat prompt on Qwen3;
 * prompts here only need the ids. This encoder does the same steps as the Rust library with no
 * per-token objects beyond the pre-token strings V8's regex returns:
 *
 *   split on added tokens → normalize the rest → split on normalized added tokens → pre-tokenize
 *   (each Split pattern in turn) → word cache, else UTF-8 bytes → byte-level ids → merges by rank
 *
 * and must give exactly the ids the reference gives (add_special_tokens = false). Built by
 * load.ts, which refuses every tokenizer.json it cannot reproduce; test/unit/fast-bpe-*.test.ts
 * compare it with the Rust binding and the JS library on thousands of strings.
 */
import type { AddedTokenFinder } from './added-tokens.js';
import { AsciiShadow } from './ascii-shadow.js';
import { writeUtf8 } from './byte-level.js';
import { WordMerger } from './merge.js';
import type { PairTable } from './pair-table.js';
import type { SplitPattern } from './text-stages.js';

export interface FastBpeParts {
  nfc: boolean;
  /** Split patterns (text-stages.ts), applied in order. */
  splits: readonly SplitPattern[];
  ignoreMerges: boolean;
  /** Byte-level token string → id (read when ignore_merges is on). */
  vocab: ReadonlyMap<string, number>;
  /** Id of the one-byte token of each byte. */
  byteIds: Int32Array;
  /** The byte-level character of each byte. */
  byteChars: readonly string[];
  pairs: PairTable;
  /** Added tokens matched on the raw text, and those matched after normalization. */
  rawTokens: AddedTokenFinder | null;
  normalizedTokens: AddedTokenFinder | null;
}

/** The cache is emptied when it grows past this many words (a Map clear is cheaper than an LRU). */
const CACHE_MAX_WORDS = 50_000;
/** Longer words are almost never seen twice: not cached. */
const CACHE_MAX_WORD_CHARS = 128;
/** Code units below U+0300 are all NFC_Quick_Check=Yes and never compose with a neighbour. */
const MAY_NEED_NFC = /[^\u0000-\u02ff]/;

type Stretch = (text: string, out: number[]) => void;

/** Pushes the id of each of `finder`'s tokens in `text`, in order, and hands every stretch between them to `between`. */
function splitOnAdded(text: string, finder: AddedTokenFinder, out: number[], between: Stretch): void {
  let from = 0;
  for (let at = finder.find(text, 0); at >= 0; at = finder.find(text, from)) {
    if (at > from) between(text.slice(from, at), out);
    out.push(finder.matchId);
    from = finder.matchEnd;
  }
  if (from < text.length) between(from === 0 ? text : text.slice(from), out);
}

export class FastBpeEncoder {
  private readonly stages: RegExp[];
  private readonly lastStage: number;
  private readonly shadow: AsciiShadow;
  private readonly merger: WordMerger;
  private readonly cache = new Map<string, number | number[]>();
  private bytes = new Uint8Array(1024);
  private symbols = new Int32Array(1024);
  /** Set only by `preTokens`: collects the words instead of encoding them. */
  private collected: string[] | null = null;
  /** The two stages that run between added tokens, bound once (no closure per encode). */
  private readonly segmentStretch: Stretch = (text, out) => this.segment(text, out);
  private readonly preTokenizeStretch: Stretch = (text, out) => this.preTokenize(text, out);

  constructor(private readonly parts: FastBpeParts) {
    this.stages = parts.splits.map((s) => new RegExp(s.source, 'gu'));
    this.lastStage = this.stages.length - 1;
    this.shadow = new AsciiShadow(parts.splits);
    this.merger = new WordMerger(parts.pairs);
  }

  /** The rank of the merge of these two ids (its index in tokenizer.json's merges), or undefined. */
  mergeRank(left: number, right: number): number | undefined {
    const at = this.parts.pairs.find(left, right);
    return at < 0 ? undefined : this.parts.pairs.rank(at);
  }

  /** Ids of `text` as the reference tokenizer encodes it with add_special_tokens = false. */
  encode(text: string): number[] {
    const out: number[] = [];
    if (text.length === 0) return out;
    const finder = this.parts.rawTokens;
    if (finder === null) this.segment(text, out);
    else splitOnAdded(text, finder, out, this.segmentStretch);
    return out;
  }

  /**
   * The pre-tokens (words) the text between added tokens splits into after normalization, in
   * order; added tokens themselves are left out. For tests and diagnostics, not the hot path.
   */
  preTokens(text: string): string[] {
    const words: string[] = [];
    this.collected = words;
    try {
      this.encode(text);
    } finally {
      this.collected = null;
    }
    return words;
  }

  /** A stretch of text between raw added tokens: normalized, then split on normalized ones. */
  private segment(text: string, out: number[]): void {
    const s = this.parts.nfc && MAY_NEED_NFC.test(text) ? text.normalize('NFC') : text;
    const finder = this.parts.normalizedTokens;
    if (finder === null) this.preTokenize(s, out);
    else splitOnAdded(s, finder, out, this.preTokenizeStretch);
  }

  /** Splits normalized text into pre-tokens, on its ASCII shadow when it has one. */
  private preTokenize(s: string, out: number[]): void {
    if (this.stages.length === 0) {
      this.word(s, out);
      return;
    }
    const shadow = this.shadow.shadow(s);
    if (shadow === null) this.split(s, 0, out);
    else this.splitShadow(s, this.shadow.map, shadow, 0, 0, out);
  }

  /**
   * Applies split stage `stage` and the ones after it to `piece`, a part of the shadow starting
   * at shadow offset `base`; words are cut from the text `s` (through `map` when offsets differ).
   */
  private splitShadow(s: string, map: Int32Array | null, piece: string, base: number, stage: number, out: number[]): void {
    const n = piece.length;
    if (stage > this.lastStage) {
      this.word(map === null ? s.slice(base, base + n) : s.slice(map[base], map[base + n]), out);
      return;
    }
    const search = this.shadow.global[stage];
    if (stage === this.lastStage) {
      const sticky = this.shadow.sticky[stage];
      let p = 0;
      while (p < n) {
        sticky.lastIndex = p;
        let from = p;
        let to: number;
        if (sticky.test(piece)) {
          to = sticky.lastIndex;
        } else {
          // A gap: it is a piece of its own, then comes the next match, if any.
          search.lastIndex = p;
          const m = search.exec(piece);
          const gapEnd = m === null ? n : m.index;
          this.word(map === null ? s.slice(base + p, base + gapEnd) : s.slice(map[base + p], map[base + gapEnd]), out);
          if (m === null) return;
          from = gapEnd;
          to = search.lastIndex;
        }
        this.word(map === null ? s.slice(base + from, base + to) : s.slice(map[base + from], map[base + to]), out);
        p = to;
      }
      return;
    }
    search.lastIndex = 0;
    let p = 0;
    for (let m = search.exec(piece); m !== null; m = search.exec(piece)) {
      const end = search.lastIndex;
      if (m.index > p) this.splitShadow(s, map, piece.slice(p, m.index), base + p, stage + 1, out);
      this.splitShadow(s, map, m[0], base + m.index, stage + 1, out);
      p = end;
    }
    if (p < n) this.splitShadow(s, map, p === 0 ? piece : piece.slice(p), base + p, stage + 1, out);
  }

  /** Applies split stage `stage` and the ones after it to `s` (the text itself: no shadow). */
  private split(s: string, stage: number, out: number[]): void {
    if (stage > this.lastStage) {
      this.word(s, out);
      return;
    }
    const re = this.stages[stage];
    if (stage === this.lastStage) {
      // One native call for all pieces; right unless the pattern left gaps between matches.
      const mark = out.length;
      const collectedMark = this.collected?.length ?? 0;
      const words = s.match(re);
      let covered = 0;
      if (words !== null) {
        for (let i = 0; i < words.length; i++) {
          covered += words[i].length;
          this.word(words[i], out);
        }
      }
      if (covered === s.length) return;
      out.length = mark;
      if (this.collected !== null) this.collected.length = collectedMark;
    }
    re.lastIndex = 0;
    let pos = 0;
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      if (m.index > pos) this.split(s.slice(pos, m.index), stage + 1, out);
      pos = re.lastIndex;
      this.split(m[0], stage + 1, out);
    }
    if (pos < s.length) this.split(pos === 0 ? s : s.slice(pos), stage + 1, out);
  }

  /** Ids of one pre-token. */
  private word(w: string, out: number[]): void {
    if (this.collected !== null) this.collected.push(w);
    const hit = this.cache.get(w);
    if (hit !== undefined) {
      if (typeof hit === 'number') out.push(hit);
      else for (let i = 0; i < hit.length; i++) out.push(hit[i]);
      return;
    }
    const ids = this.bpe(w);
    if (typeof ids === 'number') out.push(ids);
    else for (let i = 0; i < ids.length; i++) out.push(ids[i]);
    if (w.length <= CACHE_MAX_WORD_CHARS) {
      if (this.cache.size >= CACHE_MAX_WORDS) this.cache.clear();
      this.cache.set(w, ids);
    }
  }

  /** One id (most words) or several. */
  private bpe(w: string): number | number[] {
    if (this.bytes.length < w.length * 3) {
      this.bytes = new Uint8Array(w.length * 3);
      this.symbols = new Int32Array(w.length * 3);
    }
    const { bytes, symbols } = this;
    const { byteIds, byteChars } = this.parts;
    const n = writeUtf8(w, bytes);
    if (n === 1) return byteIds[bytes[0]];
    if (this.parts.ignoreMerges) {
      // Llama 3 / gpt-oss: a pre-token that is itself in the vocab is one token, merges or not.
      let s = '';
      for (let i = 0; i < n; i++) s += byteChars[bytes[i]];
      const id = this.parts.vocab.get(s);
      if (id !== undefined) return id;
    }
    for (let i = 0; i < n; i++) symbols[i] = byteIds[bytes[i]];
    const count = this.merger.merge(symbols, n);
    if (count === 1) return symbols[0];
    const ids = new Array<number>(count);
    for (let i = 0; i < count; i++) ids[i] = symbols[i];
    return ids;
  }
}
