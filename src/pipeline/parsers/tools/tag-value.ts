/**
 * Reading one argument value that runs up to a closing tag (qwen_xml's `</parameter>`, DSML's
 * `</｜DSML｜parameter>`). A value kept as a string is streamed as a JSON string while it is read —
 * only a possible partial closing tag at the end is held back — so a long file body written by a
 * coding model reaches the client as it is generated. Other values are buffered until the tag and
 * typed by the caller. The first closing tag ends the value (SMG's reading; a literal closing tag
 * inside a value cannot be told apart from the real one).
 */
import { JsonStringWriter } from './compact-writer.js';
import type { ItemSink } from './sink.js';
import { partialMarkerStart } from '../markers.js';

export class TagValueReader {
  /** The raw text read so far (buffered mode only). */
  raw = '';
  /** The closing tag was read (or the stream ended inside the value). */
  ended = false;
  private readonly writer = new JsonStringWriter();
  private readonly holds: readonly string[];
  private readonly holdLen: number;
  private leadChecked: boolean;

  /**
   * `asString`: stream the value as a JSON string into call `tool`'s arguments (the opening quote
   * is written at once). `trimNewline`: drop one newline right after the opening tag and one right
   * before the closing tag (Qwen3-Coder's template puts the value on its own lines).
   */
  constructor(
    private readonly out: ItemSink,
    private readonly tool: number,
    private readonly close: string,
    private readonly asString: boolean,
    private readonly trimNewline: boolean,
  ) {
    this.holds = trimNewline ? ['\n' + close, close] : [close];
    this.holdLen = close.length + 1;
    this.leadChecked = !trimNewline;
    if (asString) out.args(tool, '"');
  }

  /** Reads from `pos`; returns the new position (after the closing tag once `ended`). */
  step(buf: string, pos: number, final: boolean): number {
    if (!this.leadChecked) {
      if (pos === buf.length && !final) return pos;
      this.leadChecked = true;
      if (pos < buf.length && buf.charCodeAt(pos) === 0x0a) pos++;
    }
    const at = buf.indexOf(this.close, pos);
    if (at !== -1) {
      let end = at;
      if (this.trimNewline && end > pos && buf.charCodeAt(end - 1) === 0x0a) end--;
      this.take(buf.slice(pos, end));
      this.finishValue();
      return at + this.close.length;
    }
    const keep = final ? buf.length : partialMarkerStart(buf, pos, this.holds, this.holdLen);
    this.take(buf.slice(pos, keep));
    if (final) {
      this.writer.drop();
      this.finishValue();
    }
    return keep;
  }

  private take(s: string): void {
    if (s.length === 0) return;
    if (this.asString) this.out.args(this.tool, this.writer.write(s));
    else this.raw += s;
  }

  private finishValue(): void {
    if (this.asString) this.out.args(this.tool, this.writer.end() + '"');
    this.ended = true;
  }
}
