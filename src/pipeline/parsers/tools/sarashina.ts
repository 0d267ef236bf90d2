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
 * - Python literals (py-literal.ts, the same reader as `pythonic`): strings in either quote with
 *   Python escapes, True/False/None, Python numbers, tuples.
 * Differences: calls are streamed (SMG waits for the closing bracket) and undeclared names are
 * checked (SMG leaves that to the caller). A payload that is not a call list, or whose first
 * call names an undeclared tool, stays text verbatim (marker included); text after the list is
 * content (SMG trims it).
 */
import { type CallShape } from './json-call.js';
import { JsonListParser } from './json-list.js';
import { PY_SYNTAX } from './py-literal.js';
import { Next as NextEnum, toolParserSpec } from './stream-base.js';
import { skipSpace } from './tag-headers.js';
import type { ToolSchema } from './types.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const Next = NextEnum;

const MARKER = '<|tool_calls|>';
const TEXT_MARKERS = [MARKER];
const SHAPE: CallShape = { nameKey: 'name', argKeys: ['arguments'], objectArgs: true, syntax: PY_SYNTAX };

/** Deciding whether the output opens with a bare call list. */
const LEAD = 0;
const TEXT = 1;
const CALLS = 2;

class SarashinaParser extends JsonListParser {
  protected readonly startChars = '<';
  protected override shape = SHAPE;
  protected override framed = true;
  private state = LEAD;
  private readonly textSet = this.markerSet(TEXT_MARKERS);

  protected inPlainText(): boolean {
    return this.state === TEXT;
  }

  protected run(): void {
    while (!this.passthrough && this.step()) {
      /* keep stepping */
    }
  }

  private step(): boolean {
    switch (this.state) {
      case LEAD:
        return this.stepLead();
      case TEXT: {
        const marker = this.scanText(this.textSet);
        if (marker === null) return false;
        this.setCand(this.pos);
        this.pos += marker.length;
        this.startPayload(true);
        this.state = CALLS;
        return true;
      }
      default: {
        // The payload ended (its value closed, it broke, or it was released): the rest is text.
        if (this.stepList() === Next.Wait) return false;
        this.state = TEXT;
        return true;
      }
    }
  }

  private stepLead(): boolean {
    const buf = this.buf;
    const start = skipSpace(buf, 0);
    if (start < buf.length && buf[start] === '[') {
      const next = skipSpace(buf, start + 1);
      if (next === buf.length && !this.final) return false;
      if (buf[next] === '{') {
        this.out.text(buf.slice(0, start));
        this.setCand(start);
        this.pos = start;
        this.startPayload(true);
        this.state = CALLS;
        return true;
      }
    } else if (start === buf.length && !this.final) {
      return false;
    }
    this.state = TEXT;
    return true;
  }
}

export const sarashinaToolParser = toolParserSpec('sarashina', (tools: readonly ToolSchema[]) => new SarashinaParser(tools));
