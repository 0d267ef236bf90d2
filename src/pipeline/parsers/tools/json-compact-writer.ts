/**
 * Turns the token stream of json-stream.ts into compact JSON text, piece by piece, for streamed
 * tool-call arguments. Every piece is final as soon as it is produced (nothing is ever
 * retracted), and the concatenation is compact JSON of the value in the order the model wrote it.
 *
 * Choices that keep the output valid and split-independent while the input is still arriving:
 * - an object member is written when its value starts (a key left without a value is dropped);
 * - a repeated key keeps its first value (JSON.parse would keep the last one, but the first has
 *   already been streamed) and later values are skipped;
 * - `close()` writes the closers of whatever is still open, so a truncated or broken payload
 *   still ends as valid JSON;
 * - with `objectOnly`, a top-level value that is not an object is skipped (tool arguments are
 *   always an object; `close()` then yields `{}`).
 */
import { JsonTokenizer, type JsonSink } from './json-stream.js';

/**
 * JSON-escapes string text fed in pieces. A high surrogate at the end of a piece is held until
 * the next piece, so a pair split by `\uD83D\uDE00` escapes is written as the character itself,
 * exactly as JSON.stringify writes the whole string.
 */
export class JsonStringEscaper {
  private high = '';

  push(text: string): string {
    let s = this.high + text;
    this.high = '';
    if (s.length === 0) return '';
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.high = s[s.length - 1];
      s = s.slice(0, -1);
    }
    return s.length === 0 ? '' : JSON.stringify(s).slice(1, -1);
  }

  /** The string ended: a held lone high surrogate is written escaped (as JSON.stringify does). */
  end(): string {
    const h = this.high;
    this.high = '';
    return h ? JSON.stringify(h).slice(1, -1) : '';
  }
}

interface Frame {
  object: boolean;
  members: number;
  keys: Set<string> | null;
}

export class CompactJsonWriter implements JsonSink {
  private out = '';
  private readonly frames: Frame[] = [];
  private pendingKey = '';
  /** > 0 while inside a skipped container (depth within it). */
  private skipping = 0;
  /** The next value is skipped (repeated key). */
  private skipNext = false;
  private inString = false;
  private stringSkipped = false;
  private readonly escaper = new JsonStringEscaper();
  private rootSeen = false;
  /** Some output was produced (the top-level value started). */
  started = false;

  constructor(private readonly objectOnly = false) {}

  /** The output produced since the last call. */
  take(): string {
    const s = this.out;
    this.out = '';
    return s;
  }

  /** End of input: pending output plus closers for everything still open. */
  close(): string {
    let s = this.take();
    if (this.inString && !this.stringSkipped) s += this.escaper.end() + '"';
    this.inString = false;
    while (this.frames.length > 0) s += this.frames.pop()!.object ? '}' : ']';
    return s;
  }

  beginObject(): void {
    if (this.enterContainer(true)) {
      this.out += '{';
      this.frames.push({ object: true, members: 0, keys: new Set() });
    }
  }

  endObject(): void {
    this.leaveContainer();
  }

  beginArray(): void {
    if (this.enterContainer(false)) {
      this.out += '[';
      this.frames.push({ object: false, members: 0, keys: null });
    }
  }

  endArray(): void {
    this.leaveContainer();
  }

  key(name: string): void {
    if (this.skipping > 0) return;
    const f = this.frames[this.frames.length - 1];
    if (!f || !f.keys) return;
    if (f.keys.has(name)) {
      this.skipNext = true;
      return;
    }
    f.keys.add(name);
    this.pendingKey = name;
  }

  beginString(): void {
    this.inString = true;
    this.stringSkipped = !this.enterValue(false);
    if (!this.stringSkipped) this.out += '"';
  }

  stringChunk(text: string): void {
    if (!this.stringSkipped) this.out += this.escaper.push(text);
  }

  endString(): void {
    if (!this.stringSkipped) this.out += this.escaper.end() + '"';
    this.inString = false;
  }

  scalar(json: string): void {
    if (this.enterValue(false)) this.out += json;
  }

  private enterContainer(object: boolean): boolean {
    if (this.skipping > 0) {
      this.skipping++;
      return false;
    }
    if (this.enterValue(object)) return true;
    this.skipping = 1;
    return false;
  }

  private leaveContainer(): void {
    if (this.skipping > 0) {
      this.skipping--;
      return;
    }
    const f = this.frames.pop();
    if (f) this.out += f.object ? '}' : ']';
  }

  /** A value starts: writes its separator and key, or returns false when it is to be skipped. */
  private enterValue(isObject: boolean): boolean {
    if (this.skipping > 0) return false;
    if (this.skipNext) {
      this.skipNext = false;
      return false;
    }
    const f = this.frames[this.frames.length - 1];
    if (!f) {
      if (this.rootSeen) return false;
      this.rootSeen = true;
      if (this.objectOnly && !isObject) return false;
      this.started = true;
      return true;
    }
    if (f.members++ > 0) this.out += ',';
    if (f.object) this.out += JSON.stringify(this.pendingKey) + ':';
    return true;
  }
}

/**
 * Compact JSON of a complete JSON (or, with `python`, Python-literal) text, keys in written
 * order; null when the text is not one complete value (surrounding whitespace allowed).
 */
export function compactJsonText(text: string, python = false): string | null {
  const writer = new CompactJsonWriter();
  const tok = new JsonTokenizer(writer, python);
  const used = tok.write(text);
  tok.end();
  if (!tok.done || text.slice(used).trim() !== '') return null;
  return writer.close();
}
