/**
 * Streaming a call's arguments as compact JSON diffs (request-pipeline §11.3). The model writes
 * its arguments as JSON text, arbitrarily spaced; clients must receive pieces whose concatenation
 * is exactly `JSON.stringify(JSON.parse(fullText))`, the same string the non-streaming parse gives.
 *
 * Each partial text is parsed leniently (partial-json) and re-serialized. What may be sent before
 * the value is complete is the part that can no longer change:
 * - partial numbers are withheld by the parser (`1` may still become `12` or `1e-7`);
 * - the closers partial-json synthesizes (`"`, `]`, `}`) at the end are not sent yet;
 * - a lone high surrogate (an emoji whose second half has not arrived) is cut, because
 *   JSON.stringify escapes it as `\udXXX` while the completed pair is written as-is.
 * Withholding only delays text; `complete()` sends the rest.
 */
import { Allow, parse as parsePartial } from 'partial-json';

const NO_PARTIAL_NUMBERS = Allow.ALL & ~Allow.NUM;
const LONE_SURROGATE = /\\ud[89ab][0-9a-f]{2}/;

/** Compact JSON of a complete argument text, or null when it is not valid JSON. */
export function compactJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The stable prefix of a partial JSON text's compact form ('' when nothing is stable yet). */
export function stableJsonPrefix(partialText: string): string {
  let value: unknown;
  try {
    value = parsePartial(partialText, NO_PARTIAL_NUMBERS);
  } catch {
    return '';
  }
  if (value === undefined) return '';
  let s = JSON.stringify(value);
  const lone = LONE_SURROGATE.exec(s);
  if (lone) s = s.slice(0, lone.index);
  let end = s.length;
  while (end > 0) {
    const c = s.charCodeAt(end - 1);
    // `"` 0x22, `]` 0x5d, `}` 0x7d
    if (c === 0x22 || c === 0x5d || c === 0x7d) end--;
    else break;
  }
  return s.slice(0, end);
}

/** One call's argument stream: feed the raw argument text seen so far, get the diff to send. */
export class JsonArgsStream {
  private sent = '';

  /** Everything sent so far. */
  get emitted(): string {
    return this.sent;
  }

  /** The argument text is still incomplete: returns the newly stable part ('' if none). */
  partial(rawSoFar: string): string {
    const stable = stableJsonPrefix(rawSoFar);
    if (stable.length <= this.sent.length || !stable.startsWith(this.sent)) return '';
    const diff = stable.slice(this.sent.length);
    this.sent = stable;
    return diff;
  }

  /**
   * The argument text is complete: returns what is left of its compact form. `compact` is the
   * caller's `compactJson(raw)` (so a parser that already parsed it does not parse twice).
   */
  complete(compact: string): string {
    // A prefix always matches unless the model repeated a key (JSON.parse keeps the last value
    // at the first position); the remainder is then sent as is, since text cannot be retracted.
    const diff = compact.startsWith(this.sent) ? compact.slice(this.sent.length) : compact.slice(Math.min(this.sent.length, compact.length));
    this.sent = compact;
    return diff;
  }
}
