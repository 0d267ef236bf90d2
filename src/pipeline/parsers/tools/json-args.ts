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
 *
 * `JsonArgsStream.partial` reads text that only grows (each call's text extends the last one's)
 * with the incremental JsonScanner, which writes the compact form as it reads, so a long argument
 * costs O(new characters) per delta instead of a full re-parse; its pieces may come earlier than
 * `stableJsonPrefix`'s (a key or a closing quote is final as soon as it is read) and are still a
 * prefix of the complete compact form. Text that does not extend the previous text falls back to
 * `stableJsonPrefix`.
 */
import { Allow, parse as parsePartial } from 'partial-json';
import { Ev, JsonScanner } from './json-scan.js';

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
  /** The incremental reader, used while every text so far has extended the previous one. */
  private scanner: JsonScanner | null = null;
  private incremental = true;
  private scannedRaw = '';
  private scannedOut = '';

  /** Everything sent so far. */
  get emitted(): string {
    return this.sent;
  }

  /** The argument text is still incomplete: returns the newly stable part ('' if none). */
  partial(rawSoFar: string): string {
    const stable = this.stablePrefix(rawSoFar);
    if (stable.length <= this.sent.length || !stable.startsWith(this.sent)) return '';
    const diff = stable.slice(this.sent.length);
    this.sent = stable;
    return diff;
  }

  private stablePrefix(raw: string): string {
    if (this.incremental && raw.startsWith(this.scannedRaw)) {
      if (this.scanner === null) {
        this.scanner = new JsonScanner(0);
        this.scanner.capture = true;
      }
      const ev = this.scanner.scan(raw);
      this.scannedRaw = raw;
      this.scannedOut += this.scanner.out;
      this.scanner.out = '';
      if (ev !== Ev.Error) return this.scannedOut;
    }
    this.incremental = false;
    this.scanner = null;
    return stableJsonPrefix(raw);
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
