/**
 * `sarashina`: SB Intuitions Sarashina tool calls, a Python-literal list of dicts after a
 * `<|tool_calls|>` special token:
 *
 *   <|tool_calls|>[{'name': 'NAME', 'arguments': {'k': 'v', 'n': 1, 'b': True}}, …]
 *
 * Source: the reference parser smg-project/smg crates/tool_parser/src/parsers/sarashina.rs (its
 * module comment and tests give the format above, marker optional, Python `repr()` syntax). NOT
 * verified against the model: no public Sarashina chat template or tokenizer config with this
 * format was found, and neither vLLM nor SGLang has a Sarashina parser. What follows SMG:
 * - the marker is optional when the list opens the output (`[{` after optional whitespace),
 *   because a detokenizer that skips special tokens drops it; a bracket later in prose without
 *   the marker is text;
 * - the payload may be one dict instead of a list;
 * - Python literals: single- or double-quoted strings with Python escapes, True/False/None.
 * Differences: calls are streamed (SMG waits for the closing bracket) and undeclared names are
 * checked (SMG leaves that to the caller). A payload that is not a call list, or whose first
 * call names an undeclared tool, stays text verbatim (marker included); text after the list is
 * content (SMG trims it).
 */
import type { ToolParserSpec, ToolSchema } from './types.js';
import { JsonCallRegion, type CallShape } from './json-calls.js';
import { MarkerSet, TokenStreamParser, wholeText } from './token-stream-base.js';
import { skipSpace } from './tag-headers.js';

const MARKER = '<|tool_calls|>';
const TEXT_MARKERS = new MarkerSet([MARKER]);
const SHAPE: CallShape = { nameKey: 'name', argsKeys: ['arguments'], python: true, list: true };

/** Deciding whether the output opens with a bare call list. */
const LEAD = 0;
const TEXT = 1;
const CALLS = 2;

class SarashinaParser extends TokenStreamParser {
  private state = LEAD;
  private region: JsonCallRegion | null = null;
  private prefix = '';

  protected step(final: boolean): boolean {
    if (this.state === LEAD) return this.stepLead(final);
    if (this.state === TEXT) return this.stepText(final);
    return this.stepCalls();
  }

  protected atEnd(): void {
    if (this.region) this.endRegion();
  }

  private stepLead(final: boolean): boolean {
    const buf = this.buf;
    const start = skipSpace(buf, 0);
    if (start < buf.length && buf[start] === '[') {
      const next = skipSpace(buf, start + 1);
      if (next === buf.length && !final) return false;
      if (buf[next] === '{') {
        this.text(buf.slice(0, start));
        this.consume(start);
        this.openRegion('');
        return true;
      }
    } else if (start === buf.length && !final) {
      return false;
    }
    this.state = TEXT;
    return true;
  }

  private stepText(final: boolean): boolean {
    const buf = this.buf;
    const hit = TEXT_MARKERS.find(buf);
    if (hit) {
      this.text(buf.slice(0, hit[0]));
      this.consume(hit[0] + MARKER.length);
      this.openRegion(MARKER);
      return true;
    }
    const keep = final ? 0 : TEXT_MARKERS.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private stepCalls(): boolean {
    const region = this.region!;
    this.consume(region.write(this.buf));
    if (!region.finished) return false;
    this.endRegion();
    return true;
  }

  private openRegion(prefix: string): void {
    this.prefix = prefix;
    this.region = new JsonCallRegion(SHAPE, this.declared, this.emitter);
    this.state = CALLS;
  }

  /** The payload ended (its value closed, it broke, or the stream ended); the rest is text. */
  private endRegion(): void {
    const region = this.region!;
    region.end();
    if (region.abandoned) this.text(this.prefix + region.rawText);
    this.region = null;
    this.state = TEXT;
  }
}

const create = (tools: readonly ToolSchema[]) => new SarashinaParser(tools);

export const sarashinaToolParser: ToolParserSpec = {
  name: 'sarashina',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
