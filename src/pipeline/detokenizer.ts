/**
 * Incremental detokenizer: generated ids in, text deltas out (ecosystem.md §3, request-pipeline.md
 * §7.2). Decoding one id at a time is wrong for byte-level BPE: an emoji or CJK character is often
 * split over several tokens, and a lone token decodes to U+FFFD. So text is emitted only once it
 * ends on a complete character.
 *
 * Two implementations of one interface, with the same output for the same ids and calls:
 * - WindowDetokenizer works with any tokenizer by re-decoding a small window per step.
 * - ByteLevelDetokenizer serves byte-level BPE tokenizers that expose a per-id byte table
 *   (tokenizer/byte-level.ts): it feeds each id's bytes through a streaming UTF-8 decoder, so a
 *   step costs a table lookup instead of two library decodes.
 */
import { PIECE_SPECIAL, Utf8Stream, type ByteLevelVocab } from './tokenizer/byte-level.js';

const REPLACEMENT = '\uFFFD';
const REPLACEMENT_CODE = 0xfffd;

/**
 * Held tokens after which text is emitted even if incomplete. A UTF-8 character spans at most
 * 4 bytes; more held ids means invalid bytes or a run of skipped special tokens, and waiting
 * longer would only make each step slower.
 */
const MAX_HELD = 16;

/** How many already-emitted ids are worth keeping as left context (prompt ids included). */
const CONTEXT_IDS = 5;

export interface Decoder {
  decode(ids: readonly number[], skipSpecialTokens: boolean): string;
  /**
   * The tokenizer's byte-level table when its decoder is plain ByteLevel, else null. Optional so
   * that any object with decode() still works (through the window path).
   */
  byteLevelVocab?(): ByteLevelVocab | null;
}

export interface DetokenizerOptions {
  skipSpecialTokens: boolean;
  /** Prompt ids; the last few become left context so the first generated token decodes in place. */
  promptIds?: readonly number[];
}

/** One choice's detokenizer (make it with createDetokenizer). */
export interface IncrementalDetokenizer {
  /** Ids currently kept for context plus held ids; stays small for well-formed output. */
  readonly windowSize: number;
  /** Adds one generated id; returns the text it completes ('' while a character is incomplete). */
  push(id: number): string;
  /** Adds several ids at once; the batch is emitted whole when it ends on a complete character. */
  pushMany(ids: readonly number[]): string;
  /**
   * End of generation: returns held text that is complete. Trailing bytes of a character the model
   * never finished are dropped (request-pipeline.md §6.2) rather than shown as U+FFFD.
   */
  flush(): string;
}

/**
 * The implementation for `tokenizer`, returned as it is rather than behind a wrapper: per stream
 * per engine step the caller reaches one object, not two (issue 30).
 */
export function createDetokenizer(tokenizer: Decoder, opts: DetokenizerOptions): IncrementalDetokenizer {
  const vocab = tokenizer.byteLevelVocab?.() ?? null;
  return vocab ? new ByteLevelDetokenizer(vocab, tokenizer, opts) : new WindowDetokenizer(tokenizer, opts);
}

/**
 * Window = ids from `prefixOffset` on. Its first `readIdx` ids were already emitted and decode to
 * `prefixText`; they stay as left context because SentencePiece-style decoders change a token's
 * text depending on what precedes it (the leading-space rule). Each step decodes only the window,
 * so the cost is O(window), not O(generated length).
 */
class WindowDetokenizer implements IncrementalDetokenizer {
  private readonly skip: boolean;
  private window: number[];
  private readIdx: number;
  private prefixText: string;

  constructor(
    private readonly tokenizer: Decoder,
    opts: DetokenizerOptions,
  ) {
    this.skip = opts.skipSpecialTokens;
    const prompt = opts.promptIds ?? [];
    this.window = prompt.slice(Math.max(0, prompt.length - CONTEXT_IDS));
    this.readIdx = this.window.length;
    this.prefixText = this.decode(this.window);
  }

  get windowSize(): number {
    return this.window.length;
  }

  private decode(ids: readonly number[]): string {
    return ids.length === 0 ? '' : this.tokenizer.decode(ids, this.skip);
  }

  /** Moves the read point to the end of the window and returns the text that became final. */
  private commit(full: string): string {
    const text = full.length > this.prefixText.length ? full.slice(this.prefixText.length) : '';
    // The new prefix is what was just read, trimmed to a few ids of context. Starting the window
    // mid-character is harmless: prefix and full decodes then begin with the same U+FFFD.
    this.window.splice(0, Math.max(this.readIdx, this.window.length - CONTEXT_IDS));
    this.readIdx = this.window.length;
    this.prefixText = this.decode(this.window);
    return text;
  }

  push(id: number): string {
    this.window.push(id);
    const full = this.decode(this.window);
    const grew = full.length > this.prefixText.length && !full.endsWith(REPLACEMENT);
    if (grew || this.window.length - this.readIdx > MAX_HELD) return this.commit(full);
    return '';
  }

  pushMany(ids: readonly number[]): string {
    if (ids.length === 1) return this.push(ids[0]);
    if (ids.length === 0) return '';
    const before = this.window.length;
    for (const id of ids) this.window.push(id);
    const full = this.decode(this.window);
    if (full.length > this.prefixText.length && !full.endsWith(REPLACEMENT)) return this.commit(full);
    // Held: fall back to one id at a time so the MAX_HELD bound applies per id, not per batch.
    this.window.length = before;
    let text = '';
    for (const id of ids) text += this.push(id);
    return text;
  }

  flush(): string {
    if (this.window.length === this.readIdx) return '';
    let full = this.decode(this.window);
    // A truncated UTF-8 sequence at the end decodes to exactly one U+FFFD.
    if (full.endsWith(REPLACEMENT)) full = full.slice(0, -1);
    const text = full.length > this.prefixText.length ? full.slice(this.prefixText.length) : '';
    // Dropped bytes must not resurface as a broken character if ids keep coming; start afresh.
    this.window = [];
    this.readIdx = 0;
    this.prefixText = '';
    return text;
  }
}

/**
 * The window path's rules restated on a byte stream. Byte-level decoding has no left context:
 * while the window's context ends on a complete character (the normal state), the window's
 * decode is the context's text followed by the decode of the held ids alone. So `held` (text of
 * the held ids decoded so far) plus whether `utf8` has a character open is all the window path
 * looks at: it commits when that decode is non-empty and does not end in U+FFFD, or after
 * MAX_HELD ids. The left-context ids are not needed, so the prompt is ignored.
 *
 * One state is not covered: a commit forced by MAX_HELD while a character is open leaves the
 * window's context ending mid-character, and what the window path then emits depends on exactly
 * which ids that context holds (it can even split a surrogate pair). That needs 17 ids without a
 * complete character, i.e. broken output, so rather than model it this hands over to a
 * WindowDetokenizer in the same state. A prompt whose last ids end mid-character starts there too.
 */
class ByteLevelDetokenizer implements IncrementalDetokenizer {
  private readonly skipMask: number;
  private readonly utf8 = new Utf8Stream();
  /** Scratch copy of `utf8` to undo a batch that turns out to end held. */
  private readonly saved = new Utf8Stream();
  private held = '';
  private heldIds = 0;
  /** The last CONTEXT_IDS ids pushed one at a time that stayed held, as a ring, for the handover. */
  private readonly recent: number[] = new Array<number>(CONTEXT_IDS).fill(0);
  private recentPos = 0;
  private window: WindowDetokenizer | null = null;

  constructor(
    private readonly vocab: ByteLevelVocab,
    private readonly tokenizer: Decoder,
    private readonly opts: DetokenizerOptions,
  ) {
    this.skipMask = opts.skipSpecialTokens ? PIECE_SPECIAL : 0;
    const prompt = opts.promptIds ?? [];
    const context = prompt.slice(Math.max(0, prompt.length - CONTEXT_IDS));
    if (vocab.endsOpen(context, opts.skipSpecialTokens)) this.window = new WindowDetokenizer(tokenizer, opts);
  }

  get windowSize(): number {
    return this.window ? this.window.windowSize : this.heldIds;
  }

  /** Whether the held text is what the window path would commit now. */
  private committable(): boolean {
    const held = this.held;
    return !this.utf8.pending && held.length !== 0 && held.charCodeAt(held.length - 1) !== REPLACEMENT_CODE;
  }

  private take(): string {
    const text = this.held;
    this.held = '';
    this.heldIds = 0;
    return text;
  }

  push(id: number): string {
    if (this.window) return this.window.push(id);
    this.heldIds++;
    this.held += this.vocab.feed(this.utf8, id, this.skipMask);
    if (this.committable()) return this.take();
    // Only an id that stays held can be part of a forced commit's context (see below), so a
    // committed id is not written to the ring: per stream per engine step that is one array less
    // to reach (issue 30).
    this.recent[this.recentPos] = id;
    this.recentPos = this.recentPos === CONTEXT_IDS - 1 ? 0 : this.recentPos + 1;
    if (this.heldIds <= MAX_HELD) return '';
    // Forced commit: the window path emits the held decode as is, open character as U+FFFD.
    const open = this.utf8.pending;
    const text = this.take() + this.utf8.end();
    if (open) {
      // The last MAX_HELD + 1 ids all came through here and stayed held (any commit resets
      // heldIds), so the ring holds exactly the context the window path keeps after this commit.
      const context: number[] = [];
      for (let i = 0; i < CONTEXT_IDS; i++) context.push(this.recent[(this.recentPos + i) % CONTEXT_IDS]);
      this.window = new WindowDetokenizer(this.tokenizer, { ...this.opts, promptIds: context });
    }
    return text;
  }

  pushMany(ids: readonly number[]): string {
    if (this.window) return this.window.pushMany(ids);
    if (ids.length === 1) return this.push(ids[0]);
    if (ids.length === 0) return '';
    const held = this.held;
    this.saved.copyFrom(this.utf8);
    for (const id of ids) this.held += this.vocab.feed(this.utf8, id, this.skipMask);
    if (this.committable()) return this.take();
    // Like the window path: undo, then one id at a time so MAX_HELD applies per id.
    this.held = held;
    this.utf8.copyFrom(this.saved);
    let text = '';
    for (const id of ids) text += this.push(id);
    return text;
  }

  flush(): string {
    if (this.window) return this.window.flush();
    if (this.heldIds === 0) return '';
    const open = this.utf8.pending;
    let text = this.take();
    this.utf8.reset();
    // The window path drops one trailing U+FFFD: the open character's, else a decoded one.
    if (!open && text.charCodeAt(text.length - 1) === REPLACEMENT_CODE) text = text.slice(0, -1);
    return text;
  }
}
