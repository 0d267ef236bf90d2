/**
 * Per-choice output decoder (request-pipeline.md §6.2): generated ids in, visible text out, with
 * stop tokens and stop strings applied. Streaming and non-streaming both run it so the same ids
 * always give the same text.
 */
import { type Decoder, type IncrementalDetokenizer, createDetokenizer } from './detokenizer.js';
import { StopStringMatcher } from './stop-matcher.js';

export interface StopDecoderOptions {
  skipSpecialTokens: boolean;
  /** Stop strings matched on decoded text. */
  stopStrings?: readonly string[];
  /** The request's stop_token_ids. */
  stopTokenIds?: Iterable<number>;
  /** The tokenizer's EOS ids; not stops when `ignoreEos`. */
  eosTokenIds?: Iterable<number>;
  ignoreEos?: boolean;
  /** no_stop_trim: matched stop strings and stop-token text stay in the output. */
  noStopTrim?: boolean;
  /**
   * Single-token stop strings (StopPlan.tokenStopStrings). When such an id is a skipped special
   * token its text never reaches the string matcher, so the id itself counts as that string.
   */
  tokenStopStrings?: ReadonlyMap<number, string>;
  /** Prompt ids, for the detokenizer's left context. */
  promptIds?: readonly number[];
}

export interface DecodeResult {
  /** Text to emit for this call (may be '' while text is held). */
  text: string;
  stopped: boolean;
  /** The stop string that ended the output, if one did. */
  matchedStop: string | null;
  /** The stop token id that ended the output, if one did. */
  stopTokenId: number | null;
}

export class StopDecoder {
  private readonly detok: IncrementalDetokenizer;
  private readonly matcher: StopStringMatcher;
  private readonly stopIds: Set<number>;
  /**
   * The smallest stop id: an id below it is no stop without a look in the set. Stop ids are
   * mostly special tokens at the top of the vocabulary, so nearly every generated id skips the
   * set (a hash lookup and the set's table to reach per token; issue 30).
   */
  private readonly minStopId: number;
  private readonly visible: boolean;
  private readonly skip: boolean;
  private readonly tokenStopStrings: ReadonlyMap<number, string>;
  /** No stop strings to match: decoded text is emitted as it is. */
  private readonly noStopStrings: boolean;
  private stopString: string | null = null;
  private stopTokenId: number | null = null;
  private done = false;

  constructor(
    private readonly tokenizer: Decoder,
    opts: StopDecoderOptions,
  ) {
    this.skip = opts.skipSpecialTokens;
    this.detok = createDetokenizer(tokenizer, { skipSpecialTokens: this.skip, promptIds: opts.promptIds });
    this.visible = opts.noStopTrim ?? false;
    this.matcher = new StopStringMatcher(opts.stopStrings ?? [], { includeStop: this.visible });
    this.noStopStrings = !(opts.stopStrings ?? []).some((s) => s.length > 0);
    this.stopIds = new Set(opts.stopTokenIds ?? []);
    if (!opts.ignoreEos) for (const id of opts.eosTokenIds ?? []) this.stopIds.add(id);
    this.tokenStopStrings = opts.tokenStopStrings ?? new Map();
    // A single-token stop string whose text is skipped never reaches the matcher: its id stops
    // like a stop token. Decided once here, so each generated id costs one set lookup.
    for (const id of this.tokenStopStrings.keys()) {
      if (!this.stopIds.has(id) && tokenizer.decode([id], this.skip) === '') this.stopIds.add(id);
    }
    let min = Infinity;
    for (const id of this.stopIds) if (id < min) min = id;
    this.minStopId = min;
  }

  get stopped(): boolean {
    return this.done;
  }

  private result(text: string): DecodeResult {
    return { text, stopped: this.done, matchedStop: this.stopString, stopTokenId: this.stopTokenId };
  }

  /** Runs decoded text through the stop strings; returns the emitted part. */
  private match(text: string): string {
    const r = this.matcher.push(text);
    if (r.stopped) {
      this.done = true;
      this.stopString = r.matched;
    }
    return r.text;
  }

  /** A stop id ends the output; its own text shows only with no_stop_trim. */
  private stopOnToken(id: number): string {
    this.done = true;
    this.stopTokenId = id;
    const asString = this.tokenStopStrings.get(id);
    if (asString !== undefined) this.stopString = asString;
    const held = this.matcher.flush();
    return this.visible ? held + this.tokenizer.decode([id], this.skip) : held;
  }

  /** Feeds newly generated ids (one engine chunk); ids after a stop are ignored. */
  push(ids: readonly number[]): DecodeResult {
    if (this.done) return this.result('');
    // The per-token case (one id per engine step, not a stop id, no stop strings): what the loop
    // below does for it, without the loop (issue 30: this runs per stream per engine step).
    if (ids.length === 1 && this.noStopStrings && (ids[0] < this.minStopId || !this.stopIds.has(ids[0]))) return this.result(this.detok.push(ids[0]));
    let out = '';
    let runStart = 0;
    for (let i = 0; i <= ids.length && !this.done; i++) {
      const atEnd = i === ids.length;
      const id = ids[i];
      if (!atEnd && !this.stopIds.has(id)) continue;
      // Ordinary ids are decoded a run at a time: one window decode per run, not per id.
      if (i > runStart) {
        const run = runStart === 0 && atEnd ? ids : ids.slice(runStart, i);
        out += this.match(this.detok.pushMany(run));
      }
      runStart = i + 1;
      if (!atEnd && !this.done) out += this.stopOnToken(id);
    }
    return this.result(out);
  }

  /** End of generation without a local stop: emits held text (it never completed a stop). */
  finish(): DecodeResult {
    if (this.done) return this.result('');
    let out = this.match(this.detok.flush());
    if (!this.done) out += this.matcher.flush();
    return this.result(out);
  }
}
