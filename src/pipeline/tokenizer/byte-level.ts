/**
 * Byte-level BPE decoding from a per-id table, for tokenizers whose decoder is exactly the GPT-2
 * ByteLevel decoder (Qwen, Llama 3, gpt-oss). It reproduces what @huggingface/tokenizers'
 * `decode(ids, { skip_special_tokens, clean_up_tokenization_spaces: false })` returns, but in a
 * form that takes one id at a time, so the incremental detokenizer need not re-decode a window per
 * token (detokenizer.ts).
 *
 * What the library's decode does for such a tokenizer, and so what the table must reproduce:
 * - id → vocab string, or the model's unk_token when the id has none;
 * - with skip_special_tokens, strings equal to a special token (added tokens marked special, plus
 *   tokenizer_config additional_special_tokens given as strings) are dropped first, so the bytes on
 *   either side of a skipped token join up;
 * - a string equal to an added token's content is output verbatim and cuts the byte stream: the
 *   bytes before it are decoded on their own, a truncated character becoming U+FFFD;
 * - every other string maps char by char through the GPT-2 unicode→byte table, and each run of
 *   bytes goes through a non-fatal TextDecoder with ignoreBOM (a BOM is kept as U+FEFF).
 * Normalizers and pre-tokenizers only act on encode, so they cannot change decoded text.
 */
import { ByteLevelDecoder, type Tokenizer } from '@huggingface/tokenizers';

/** Ids of this kind decode from a clean UTF-8 state to `text` and leave the state clean. */
export const PIECE_COMPLETE = 0;
/** Bytes that leave a character open (or need the state before them): run through Utf8Stream. */
export const PIECE_PARTIAL = 1;
/** Added token: verbatim text that first closes any open character as U+FFFD. */
export const PIECE_ADDED = 2;
export const PIECE_KIND_MASK = 3;
/** Flag: dropped when skip_special_tokens. */
export const PIECE_SPECIAL = 4;

/**
 * WHATWG UTF-8 decoder (what TextDecoder runs, so U+FFFD lands exactly where the library's
 * non-streaming decode puts it), fed in pieces. Unlike `TextDecoder` with `{stream: true}` it
 * tells whether a character is open, which the detokenizer's hold rule needs, and its state can
 * be copied to undo a batch.
 */
export class Utf8Stream {
  private cp = 0;
  private needed = 0;
  private seen = 0;
  private lower = 0x80;
  private upper = 0xbf;

  /** A character has started and not ended. */
  get pending(): boolean {
    return this.needed !== 0;
  }

  /** Decodes bytes[start, end); returns every character that is complete (or invalid) so far. */
  write(bytes: Uint8Array, start: number, end: number): string {
    let out = '';
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (this.needed === 0) {
        if (b < 0x80) {
          out += String.fromCharCode(b);
        } else if (b >= 0xc2 && b <= 0xdf) {
          this.needed = 1;
          this.cp = b & 0x1f;
        } else if (b >= 0xe0 && b <= 0xef) {
          // Overlong forms and surrogates are excluded by narrowing the second byte's range.
          if (b === 0xe0) this.lower = 0xa0;
          else if (b === 0xed) this.upper = 0x9f;
          this.needed = 2;
          this.cp = b & 0x0f;
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) this.lower = 0x90;
          else if (b === 0xf4) this.upper = 0x8f;
          this.needed = 3;
          this.cp = b & 0x07;
        } else {
          out += '\uFFFD';
        }
        continue;
      }
      if (b < this.lower || b > this.upper) {
        // The open character is cut short: one U+FFFD for it, and this byte is read afresh.
        this.reset();
        out += '\uFFFD';
        i--;
        continue;
      }
      this.lower = 0x80;
      this.upper = 0xbf;
      this.cp = (this.cp << 6) | (b & 0x3f);
      if (++this.seen === this.needed) {
        out += String.fromCodePoint(this.cp);
        this.cp = this.needed = this.seen = 0;
      }
    }
    return out;
  }

  /** End of a byte run: an open character becomes one U+FFFD. */
  end(): string {
    if (this.needed === 0) return '';
    this.reset();
    return '\uFFFD';
  }

  /** Forgets an open character without output. */
  reset(): void {
    this.cp = this.needed = this.seen = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }

  copyFrom(other: Utf8Stream): void {
    this.cp = other.cp;
    this.needed = other.needed;
    this.seen = other.seen;
    this.lower = other.lower;
    this.upper = other.upper;
  }
}

/**
 * The table. Slot `size` stands for every id outside the vocab (the library decodes those as
 * unk_token), so a lookup is `slot = (id >>> 0) === id && id < size ? id : size`.
 */
export class ByteLevelVocab {
  constructor(
    /** Number of ids with their own slot. */
    readonly size: number,
    /** PIECE_* kind | PIECE_SPECIAL, per slot. */
    readonly kind: Uint8Array,
    /** PIECE_COMPLETE: the decoded text; PIECE_ADDED: the token content; PIECE_PARTIAL: ''. */
    readonly text: readonly string[],
    /** Slot i's bytes are bytes[start[i], start[i + 1]) (empty for added tokens). */
    readonly start: Uint32Array,
    readonly bytes: Uint8Array,
  ) {}

  slot(id: number): number {
    return (id >>> 0) === id && id < this.size ? id : this.size;
  }

  /**
   * Feeds one id into `utf8` and returns the text it completes. COMPLETE ids on a clean state
   * skip the byte loop; that is the common case and the point of the table.
   */
  feed(utf8: Utf8Stream, id: number, skipMask: number): string {
    const slot = (id >>> 0) === id && id < this.size ? id : this.size;
    const kind = this.kind[slot];
    if ((kind & skipMask) !== 0) return '';
    const piece = kind & PIECE_KIND_MASK;
    if (piece === PIECE_COMPLETE && !utf8.pending) return this.text[slot];
    if (piece === PIECE_ADDED) return utf8.end() + this.text[slot];
    return utf8.write(this.bytes, this.start[slot], this.start[slot + 1]);
  }

  /** Same result as the library's decode of `ids` (used to check the table, and by tests). */
  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    const utf8 = new Utf8Stream();
    const mask = skipSpecialTokens ? PIECE_SPECIAL : 0;
    let out = '';
    for (const id of ids) out += this.feed(utf8, id, mask);
    return out + utf8.end();
  }

  /** Whether decoding `ids` leaves a character open (its last bytes are a truncated character). */
  endsOpen(ids: readonly number[], skipSpecialTokens: boolean): boolean {
    const utf8 = new Utf8Stream();
    const mask = skipSpecialTokens ? PIECE_SPECIAL : 0;
    for (const id of ids) this.feed(utf8, id, mask);
    return utf8.pending;
  }
}

/** GPT-2 bytes_to_unicode, reversed: char code → byte, -1 for chars outside the alphabet. */
const CHAR_TO_BYTE: Int16Array = (() => {
  const table = new Int16Array(256 + 68).fill(-1);
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    // Printable Latin-1 stands for itself; the other 68 bytes move up to U+0100… in byte order.
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    table[printable ? b : 256 + shifted++] = b;
  }
  return table;
})();

function specialStrings(tok: Tokenizer, tokenizerConfig: Readonly<Record<string, unknown>> | null): Set<string> {
  const out = new Set<string>();
  for (const token of tok.get_added_tokens_decoder().values()) if (token.special) out.add(token.content);
  // The library compares strings only, so an entry written as {content: ...} never matches.
  const extra = tokenizerConfig?.additional_special_tokens;
  if (Array.isArray(extra)) for (const entry of extra) if (typeof entry === 'string') out.add(entry);
  return out;
}

/**
 * Builds the table, or returns null when the tokenizer is not plain byte-level BPE or anything
 * about it is outside what the table reproduces; callers then keep the library's decode.
 * `tokenizerConfig` must be the config the Tokenizer was constructed with.
 */
export function buildByteLevelVocab(
  tok: Tokenizer,
  tokenizerConfig: Readonly<Record<string, unknown>> | null,
): ByteLevelVocab | null {
  const decoder = tok.decoder;
  const model = tok.model;
  // Exactly ByteLevel: a Sequence around it (Replace, Strip, ...) could rewrite the text.
  if (decoder === null || model === null || Object.getPrototypeOf(decoder) !== ByteLevelDecoder.prototype) return null;
  if (decoder.config?.type !== 'ByteLevel') return null;
  // decode() rewrites end_of_word_suffix to spaces and trims; not byte-level behaviour.
  if (model.end_of_word_suffix || decoder.end_of_word_suffix) return null;

  const added = new Set(decoder.added_tokens.map((t) => t.content));
  const special = specialStrings(tok, tokenizerConfig);
  const unk: unknown = model.unk_token;
  const size = model.vocab.length;
  const strings: unknown[] = new Array<unknown>(size + 1);
  let byteCount = 0;
  for (let slot = 0; slot <= size; slot++) {
    // What the library decodes the id as: `vocab[id] ?? unk_token`.
    const s: unknown = (slot < size ? tok.id_to_token(slot) : undefined) ?? unk;
    strings[slot] = s;
    if (typeof s === 'string' && !added.has(s)) byteCount += s.length;
    else if (s !== null && s !== undefined && typeof s !== 'string') return null;
  }

  const kind = new Uint8Array(size + 1);
  // Filled in slot order by push so V8 keeps it a packed array (no hole checks on lookup).
  const text: string[] = [];
  const start = new Uint32Array(size + 2);
  const bytes = new Uint8Array(byteCount);
  const utf8 = new Utf8Stream();
  let at = 0;
  for (let slot = 0; slot <= size; slot++) {
    start[slot] = at;
    const s = strings[slot];
    if (typeof s !== 'string') {
      // A missing unk_token joins as '': no bytes.
      kind[slot] = PIECE_COMPLETE;
      text.push('');
      continue;
    }
    const flag = special.has(s) ? PIECE_SPECIAL : 0;
    if (added.has(s)) {
      kind[slot] = PIECE_ADDED | flag;
      text.push(s);
      continue;
    }
    const from = at;
    for (let i = 0; i < s.length; i++) {
      const code = s.charCodeAt(i);
      const b = code < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[code] : -1;
      // The library maps an unknown char to byte 0; a vocab with such strings is not byte-level.
      if (b < 0) return null;
      bytes[at++] = b;
    }
    utf8.reset();
    const decoded = utf8.write(bytes, from, at);
    if (utf8.pending) {
      kind[slot] = PIECE_PARTIAL | flag;
      text.push('');
    } else {
      kind[slot] = PIECE_COMPLETE | flag;
      // Tokens of plain printable ASCII decode to their own vocab string: share it, not a copy.
      text.push(decoded === s ? s : decoded);
    }
  }
  start[size + 1] = at;

  const vocab = new ByteLevelVocab(size, kind, text, start, bytes);
  return agreesWithLibrary(tok, vocab, special) ? vocab : null;
}

/**
 * Spot check against the library on the cases that differ in kind: every added and special
 * token, the single bytes, a spread of ordinary ids, an id outside the vocab, and byte runs cut by
 * added and skipped tokens. Guards against a library upgrade changing decode underneath the table.
 */
function agreesWithLibrary(tok: Tokenizer, vocab: ByteLevelVocab, special: ReadonlySet<string>): boolean {
  const cases: number[][] = [];
  const addedIds = [...tok.get_added_tokens_decoder().keys()];
  for (const id of addedIds) cases.push([id]);
  for (const s of special) {
    const id = tok.token_to_id(s);
    if (id !== undefined) cases.push([id]);
  }
  for (let b = 0; b < 256; b++) {
    const id = tok.token_to_id(String.fromCharCode(CHAR_TO_BYTE.indexOf(b)));
    if (id !== undefined) cases.push([id]);
  }
  const stride = Math.max(1, Math.floor(vocab.size / 400));
  for (let id = 0; id < vocab.size; id += stride) cases.push([id]);
  cases.push([vocab.size], [vocab.size + 7]);

  const partial: number[] = [];
  for (let id = 0; id < vocab.size && partial.length < 6; id++) {
    if ((vocab.kind[id] & PIECE_KIND_MASK) === PIECE_PARTIAL) partial.push(id);
  }
  const specialId = addedIds.find((id) => (vocab.kind[id] & PIECE_SPECIAL) !== 0);
  const plainAddedId = addedIds.find((id) => (vocab.kind[id] & PIECE_SPECIAL) === 0);
  const seq = [...partial.slice(0, 2)];
  if (specialId !== undefined) seq.push(specialId);
  seq.push(...partial.slice(2, 4));
  if (plainAddedId !== undefined) seq.push(plainAddedId);
  seq.push(...partial.slice(4));
  if (seq.length > 0) cases.push(seq);

  for (const ids of cases) {
    for (const skip of [false, true]) {
      const expected = tok.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false });
      if (vocab.decode(ids, skip) !== expected) return false;
    }
  }
  return true;
}
