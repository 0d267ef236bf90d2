/**
 * Streaming one Harmony tool call's arguments.
 *
 * The final arguments text is decided from the whole message content `raw`:
 * - valid JSON → its compact form (`compactJson`, what every other tool parser sends, request-pipeline
 *   §11.3; vLLM's openai tool parser also re-serializes valid JSON, SMG passes the text through);
 * - invalid JSON (a truncated call, a model that wrote something else) → `raw` verbatim, as SMG and
 *   vLLM keep it, so nothing the model wrote is lost;
 * - valid JSON that parsing would reorder (a repeated key, an integer-like key JS hoists to the
 *   front) → also `raw` verbatim, since the compact form would contradict text already streamed.
 *
 * While the message is open its validity is unknown, so only text that both outcomes agree on may
 * be sent: the prefix of `raw` that is already in compact form (the tool parsers' JSON scanner
 * with `spelling` on, parsers/tools/json-spelling.ts). A model writing compact JSON (gpt-oss
 * usually does) streams almost every character at once; spaced JSON streams up to the first space
 * and the rest when the message ends. Folding the pieces therefore always gives the final text,
 * whatever the split.
 */
import { compactJson } from '../parsers/tools/json-args.js';
import { JsonScanner } from '../parsers/tools/json-scan.js';
import type { JsonSpelling } from '../parsers/tools/json-spelling.js';

function spellingOf(raw: string): JsonSpelling {
  const sc = new JsonScanner(0, { spelling: true });
  sc.scan(raw);
  return sc.spelling as JsonSpelling;
}

/** The arguments text a complete call reports (see the file comment); `spelling` is raw's, when already scanned. */
export function finalArguments(raw: string, spelling?: JsonSpelling): string {
  const compact = compactJson(raw);
  if (compact === null) return raw;
  return (spelling ?? spellingOf(raw)).faithful ? compact : raw;
}

export class CallArgumentsStream {
  private raw = '';
  /** Length of the prefix of `raw` already sent. */
  private sent = 0;
  /** `raw` after `sent` (kept apart so that sending does not slice the growing `raw`). */
  private unsent = '';
  private readonly scanner = new JsonScanner(0, { spelling: true });
  private readonly spelling = this.scanner.spelling as JsonSpelling;

  /** Adds content; returns the newly safe part ('' if none). */
  push(text: string): string {
    // Only the delta is scanned (the scanner keeps its state between calls): reading the growing
    // `raw` by index would flatten the concatenated string on every push.
    this.spelling.offset = this.raw.length;
    this.raw += text;
    this.unsent += text;
    this.scanner.pos = 0;
    this.scanner.scan(text);
    const safe = this.spelling.canonical;
    if (safe <= this.sent) return '';
    const n = safe - this.sent;
    const diff = n === this.unsent.length ? this.unsent : this.unsent.slice(0, n);
    this.unsent = n === this.unsent.length ? '' : this.unsent.slice(n);
    this.sent = safe;
    return diff;
  }

  /** The message ended: the rest of the final arguments text. */
  finish(): string {
    const final = finalArguments(this.raw, this.spelling);
    // What was sent is a prefix of `raw`, and of the compact form whenever that is reported.
    return final.startsWith(this.raw.slice(0, this.sent)) ? final.slice(this.sent) : this.raw.slice(this.sent);
  }
}
