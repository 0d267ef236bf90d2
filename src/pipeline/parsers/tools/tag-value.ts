/**
 * Reading one argument value that runs up to an end tag (qwen_xml's `</parameter>`, DSML's
 * `</｜DSML｜parameter>`, GLM's `</arg_value>`, …). A value kept as a string streams as a JSON
 * string while it is read — only a possible partial end tag at the end is held back — so a long
 * file body written by a coding model reaches the client as it is generated. Other values are
 * buffered until the tag and typed by the caller; a skipped value (a repeated key) is read and
 * dropped. The first end tag ends the value (SMG's reading; a literal end tag inside a value
 * cannot be told apart from the real one). Which tags end a value, and which of them belong to
 * it, is the format's business: the reader stops in front of the first one and says which.
 */
import type { ArgsObjectWriter } from './args-object.js';
import type { MarkerFinder } from './marker-finder.js';
import type { ItemSink } from './sink.js';

export enum ValueMode {
  /** Streamed into the arguments as a JSON string (the caller wrote the opening quote). */
  Stream,
  /** Collected in `raw` for typing once complete. */
  Buffer,
  /** Read and dropped. */
  Skip,
}

export class TagValue {
  /** The buffered text (Buffer mode). */
  raw = '';
  /** Buffered text outgrew the limit: the value is dropped. */
  overflow = false;
  /** The end tag the value stopped at ('' until one is found). */
  end = '';
  private leadChecked: boolean;

  /**
   * `trimNewline`: one newline right after the opening tag is formatting, not content (Qwen3-Coder's
   * template puts the value on its own lines; the one before the end tag is the caller's end marker
   * `\n</parameter>`).
   */
  constructor(
    private readonly out: ItemSink,
    private readonly tool: number,
    private readonly args: ArgsObjectWriter,
    readonly mode: ValueMode,
    trimNewline: boolean,
    private readonly rawLimit = Number.POSITIVE_INFINITY,
  ) {
    this.leadChecked = !trimNewline;
  }

  /**
   * Reads from `pos` up to the first of `ends` (setting `end` to it) or, without one, as far as
   * the text is decided (all of it when `final`); returns where it stopped, in front of the tag.
   */
  read(buf: string, pos: number, final: boolean, ends: MarkerFinder, dropped: number): number {
    if (!this.leadChecked) {
      if (pos === buf.length && !final) return pos;
      this.leadChecked = true;
      if (pos < buf.length && buf.charCodeAt(pos) === 0x0a) pos++;
    }
    const at = ends.locate(buf, pos, dropped);
    const stop = at !== -1 ? at : final ? buf.length : ends.partialStart(buf, pos);
    if (stop > pos) this.take(buf.slice(pos, stop));
    this.end = ends.located;
    return stop;
  }

  private take(s: string): void {
    if (this.mode === ValueMode.Stream) this.out.args(this.tool, this.args.stringChunk(s));
    else if (this.mode === ValueMode.Buffer && !this.overflow) {
      if (this.raw.length + s.length <= this.rawLimit) this.raw += s;
      else {
        // An oversized typed value is dropped rather than buffered.
        this.overflow = true;
        this.raw = '';
      }
    }
  }
}
