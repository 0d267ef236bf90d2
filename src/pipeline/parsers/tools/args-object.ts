/**
 * Writing one call's argument object as compact JSON pieces, for the formats that spell arguments
 * as key/value pairs (qwen_xml, DSML, GLM, MiniMax, Step-3, Kimi-K3): the parser builds the JSON
 * object itself, one member per pair, in the order the model wrote them.
 *
 * A member is written either at once (`key`, then the value's JSON when it is known: qwen_xml and
 * DSML keep a cut-off value) or whole when its value is complete (`member`: the key/value formats
 * drop a value cut off before its close tag). A string value may stream (`beginString`, chunks,
 * `endString`). With `firstKeyWins` a repeated key keeps its first value (`isRepeat`; the caller
 * skips the value); otherwise every pair is written, as the model wrote it.
 */
import { JsonStringWriter } from './compact-writer.js';

export class ArgsObjectWriter {
  private readonly keys: Set<string> | null;
  private members = 0;
  private readonly writer = new JsonStringWriter();
  private stringOpen = false;

  constructor(firstKeyWins = true) {
    this.keys = firstKeyWins ? new Set() : null;
  }

  open(): string {
    return '{';
  }

  isRepeat(key: string): boolean {
    return this.keys !== null && this.keys.has(key);
  }

  /** A member's key; its value follows. */
  key(key: string): string {
    this.keys?.add(key);
    return (this.members++ > 0 ? ',' : '') + JSON.stringify(key) + ':';
  }

  /** A complete member. */
  member(key: string, json: string): string {
    return this.key(key) + json;
  }

  /** Starts a streamed string member (`key === null`: the key was written already). */
  beginString(key: string | null): string {
    this.stringOpen = true;
    return (key === null ? '' : this.key(key)) + '"';
  }

  stringChunk(text: string): string {
    return this.writer.write(text);
  }

  /** Ends the streamed string; a held high surrogate is written escaped. */
  endString(): string {
    this.stringOpen = false;
    return this.writer.end() + '"';
  }

  /** Ends a streamed string cut off by the end of the stream; a held high surrogate is dropped. */
  cutString(): string {
    this.writer.drop();
    return this.endString();
  }

  /** Closes the object (and a string member left open by a truncated stream). */
  close(): string {
    return (this.stringOpen ? this.endString() : '') + '}';
  }
}
