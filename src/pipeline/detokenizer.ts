/**
 * Incremental detokenizer: generated ids in, text deltas out (ecosystem.md §3, request-pipeline.md
 * §7.2). Decoding one id at a time is wrong for byte-level BPE: an emoji or CJK character is often
 * split over several tokens, and a lone token decodes to U+FFFD. So text is emitted only once the
 * decode of a small window ends on a complete character.
 *
 * Window = ids from `prefixOffset` on. Its first `readIdx` ids were already emitted and decode to
 * `prefixText`; they stay as left context because SentencePiece-style decoders change a token's
 * text depending on what precedes it (the leading-space rule). Each step decodes only the window,
 * so the cost is O(window), not O(generated length).
 */

const REPLACEMENT = '\uFFFD';

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
}

export interface DetokenizerOptions {
  skipSpecialTokens: boolean;
  /** Prompt ids; the last few become left context so the first generated token decodes in place. */
  promptIds?: readonly number[];
}

export class IncrementalDetokenizer {
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

  /** Ids currently kept for context plus held ids; stays small for well-formed output. */
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

  /** Adds one generated id; returns the text it completes ('' while a character is incomplete). */
  push(id: number): string {
    this.window.push(id);
    const full = this.decode(this.window);
    const grew = full.length > this.prefixText.length && !full.endsWith(REPLACEMENT);
    if (grew || this.window.length - this.readIdx > MAX_HELD) return this.commit(full);
    return '';
  }

  /** Adds several ids with one decode when the batch ends on a complete character. */
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

  /**
   * End of generation: returns held text that is complete. Trailing bytes of a character the model
   * never finished are dropped (request-pipeline.md §6.2) rather than shown as U+FFFD.
   */
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
