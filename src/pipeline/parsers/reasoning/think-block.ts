/**
 * The base reasoning parser: one reasoning block between a start and an end marker
 * (`<think>` / `</think>` and the like, request-pipeline.md §11.2). Every family except
 * passthrough, kimi_k3 and inkling is this class with other markers or another initial state.
 *
 * Behaviour (identical for streaming and non-streaming, for any split of the text):
 * - Not in reasoning: text is content until the first start marker, which opens reasoning. The
 *   end marker means nothing here and stays text.
 * - In reasoning: text is reasoning until the first end marker; everything after it is content,
 *   verbatim (the `\n\n` after `</think>` stays in the content, as SMG does). Markers after that
 *   are ordinary text. No end marker ever ⇒ everything is reasoning (truncated thinking).
 * - A start marker seen while already in reasoning (the model repeats the tag the template armed
 *   for) is dropped, once.
 * - `startMarkerConsumed` (think-in-prefill): the prompt already wrote the start marker, so only a
 *   start marker at the very beginning of the output is still taken as a marker; later ones are
 *   literal text.
 * - A partial marker still held when the stream ends is flushed into the current field.
 *
 * Deviations from SMG's BaseReasoningParser (crates/reasoning_parser/src/parsers/base.rs @ f8daa88),
 * chosen so that stream and non-stream agree and match what a reader of the output expects:
 * 1. SMG's non-stream path removes *every* start marker anywhere in the text; here only the first
 *    one is consumed and later ones (after `</think>`, or a second `<think>` inside the reasoning)
 *    are kept as written.
 * 2. SMG's non-stream path, when not armed, treats text *before* the start marker as reasoning
 *    ("abc<think>x</think>y" → reasoning "abcx"); its stream path does the same only when "abc"
 *    and the marker arrive in one delta. Here text before the start marker is always content.
 * 3. SMG's stream path, after `mark_think_start_stripped`, never strips a start marker, so a model
 *    whose template only *might* prefill `<think>` (Qwen3 hybrid: the detection is static, §4.4)
 *    shows a literal `<think>` in reasoning_content when streaming but not when not streaming.
 *    Here a leading start marker is consumed either way.
 * 4. SMG misses an end marker split across deltas when the delta carrying its first half also
 *    carries text before it; the scanner here holds back only the possible marker suffix.
 * 5. SMG drops a partial marker held at end of stream; here `finish()` flushes it.
 * 6. SMG fails (4 MiB "Buffer overflow") on a non-stream text above the limit and skips parsing;
 *    here nothing is ever buffered beyond one marker length, so any size parses the same way.
 */
import type { ParsedItem, StreamingParser } from '../types.js';
import type { ReasoningOptions, ReasoningParserSpec } from './types.js';
import { emit, MarkerSet, MarkerStreamParser, parseWhole } from './marker-stream.js';

export interface ThinkMarkers {
  readonly start: string;
  readonly end: string;
}

/** The four marker sets a think-block parser can watch, built once per spec. */
interface ThinkSets {
  readonly markers: ThinkMarkers;
  /** Before reasoning, start marker still open to consume. */
  readonly start: MarkerSet;
  /** In reasoning, start marker still open to consume. */
  readonly both: MarkerSet;
  /** In reasoning, start marker already consumed. */
  readonly end: MarkerSet;
  readonly none: MarkerSet;
}

function thinkSets(markers: ThinkMarkers): ThinkSets {
  return {
    markers,
    start: new MarkerSet([markers.start]),
    both: new MarkerSet([markers.start, markers.end]),
    end: new MarkerSet([markers.end]),
    none: new MarkerSet([]),
  };
}

const BEFORE = 0;
const REASONING = 1;
const AFTER = 2;
type Phase = typeof BEFORE | typeof REASONING | typeof AFTER;

export class ThinkBlockParser extends MarkerStreamParser {
  private phase: Phase;
  /** The start marker can still be consumed anywhere (not yet seen, not pre-filled). */
  private startOpen: boolean;

  constructor(
    private readonly sets: ThinkSets,
    opts: ReasoningOptions,
  ) {
    super(sets.none, opts.startMarkerConsumed ? sets.markers.start : null);
    this.phase = opts.startInReasoning ? REASONING : BEFORE;
    this.startOpen = !opts.startMarkerConsumed;
    this.rewatch();
  }

  private rewatch(): void {
    const s = this.sets;
    if (this.phase === BEFORE) this.watched = this.startOpen ? s.start : s.none;
    else if (this.phase === REASONING) this.watched = this.startOpen ? s.both : s.end;
    else this.watched = s.none;
  }

  protected onText(text: string, out: ParsedItem[]): void {
    emit(out, this.phase === REASONING ? 'reasoning' : 'text', text);
  }

  protected onMarker(marker: string, _out: ParsedItem[]): void {
    if (marker === this.sets.markers.end && this.phase === REASONING) {
      this.phase = AFTER;
    } else {
      // The start marker: opens reasoning, or is dropped when reasoning was already armed.
      this.startOpen = false;
      if (this.phase === BEFORE) this.phase = REASONING;
    }
    this.rewatch();
  }
}

/** A registry entry for a think-block parser. */
export function thinkBlockSpec(name: string, markers: ThinkMarkers, startsInReasoning: boolean): ReasoningParserSpec {
  const sets = thinkSets(markers);
  const create = (opts: ReasoningOptions): StreamingParser => new ThinkBlockParser(sets, opts);
  return {
    name,
    startsInReasoning,
    needsSpecialTokens: false,
    create,
    parse: (text, opts) => parseWhole(create(opts), text),
  };
}

/** The `<think>` / `</think>` pair most families use. */
export const THINK_TAGS: ThinkMarkers = { start: '<think>', end: '</think>' };
