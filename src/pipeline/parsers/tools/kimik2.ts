/**
 * `kimik2`: Kimi-K2 tool calls (every marker is a special token):
 *
 *   <|tool_calls_section_begin|>
 *   <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{JSON}<|tool_call_end|>
 *   <|tool_call_begin|>…<|tool_call_end|>
 *   <|tool_calls_section_end|>
 *
 * Sources: https://huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/docs/tool_call_guidance.md
 * (Moonshot's guide, which SMG's parser cites for this layout; only its opening part could be
 * read here); reference parsers smg-project/smg crates/tool_parser/src/parsers/kimik2.rs and
 * vLLM vllm/tool_parsers/kimi_k2_tool_parser.py (which also accepts the singular section-marker
 * spelling `<|tool_call_section_begin|>` / `_end|>`, accepted here too).
 *
 * The call id is `functions.NAME:IDX` or `NAME:IDX`; the name is what remains after removing the
 * `functions.` prefix and the `:IDX` suffix (an id without `:IDX` is accepted). The arguments are
 * streamed as compact JSON in written key order (json-args-reader.ts, settled members: a repeated
 * key keeps its first value); broken or truncated argument JSON ends as the valid JSON read so far (SMG and vLLM drop such a call in
 * one path and stream it raw in the other). A call begun outside a section is parsed the same
 * way. A call naming an undeclared tool stays text, `<|tool_call_begin|>` through
 * `<|tool_call_end|>`; the section markers are framing and never shown.
 */
import { JsonArgsReader, NonObject } from './json-args-reader.js';
import { MODEL_JSON } from './json-scan.js';
import { ToolStreamParser, toolParserSpec } from './stream-base.js';
import { expectLiteral, HEADER_LIMIT } from './tag-headers.js';
import type { ToolSchema } from './types.js';

const SECTION_BEGIN = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'];
const SECTION_END = ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'];
const CALL_BEGIN = '<|tool_call_begin|>';
const ARG_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

const TEXT_MARKERS = [...SECTION_BEGIN, CALL_BEGIN];
const SECTION_MARKERS = [CALL_BEGIN, ...SECTION_END];
const CALL_END_MARKERS = [CALL_END, ...SECTION_END, CALL_BEGIN];

const TEXT = 0;
const SECTION = 1;
const HEADER = 2;
const ARGS = 3;
const PASS = 4;

/** `functions.NAME:IDX<|tool_call_argument_begin|>`; the id holds no `<`. */
function readCallId(buf: string, final: boolean): { name: string; length: number } | 'more' | 'invalid' {
  const lt = buf.indexOf('<');
  if (lt < 0) return final ? 'invalid' : 'more';
  const end = expectLiteral(buf, lt, ARG_BEGIN);
  if (end === 'more') return final ? 'invalid' : 'more';
  if (end === 'invalid') return 'invalid';
  let id = buf.slice(0, lt).trim().replace(/:\d+$/, '');
  if (id.startsWith('functions.')) id = id.slice('functions.'.length);
  return id ? { name: id, length: end } : 'invalid';
}

/** Every state but plain text reads the buffer from its start (each step consumes what it read). */
class KimiK2Parser extends ToolStreamParser {
  protected readonly startChars = '<';
  private state = TEXT;
  /** Inside a section (else a bare call: back to text after it). */
  private inSection = false;
  private readonly textSet = this.markerSet(TEXT_MARKERS);
  private readonly sectionSet = this.markerSet(SECTION_MARKERS);
  /** What ends a call's arguments (and a passed-through call). */
  private readonly callEnd = this.markerSet(CALL_END_MARKERS);
  private args: JsonArgsReader | null = null;

  protected inPlainText(): boolean {
    return this.state === TEXT;
  }

  protected run(): void {
    while (this.step()) {
      /* keep stepping */
    }
    if (this.final && this.args !== null) this.closeCall();
  }

  private step(): boolean {
    switch (this.state) {
      case TEXT:
        return this.stepText();
      case SECTION:
        return this.stepSection();
      case HEADER:
        return this.stepHeader();
      case ARGS:
        return this.stepArgs();
      default:
        return this.stepPass();
    }
  }

  private get outside(): number {
    return this.inSection ? SECTION : TEXT;
  }

  private stepText(): boolean {
    const marker = this.scanText(this.textSet);
    if (marker === null) return false;
    this.consumeTo(this.pos + marker.length);
    this.inSection = marker !== CALL_BEGIN;
    this.state = this.inSection ? SECTION : HEADER;
    return true;
  }

  private stepSection(): boolean {
    const at = this.upTo(this.sectionSet);
    const marker = this.hit;
    this.consumeTo(at + marker.length);
    if (marker === '') return false;
    this.state = marker === CALL_BEGIN ? HEADER : TEXT;
    return true;
  }

  private stepHeader(): boolean {
    let r = readCallId(this.buf, this.final);
    if (r === 'more' && this.buf.length > HEADER_LIMIT) r = 'invalid';
    if (r === 'more') return false;
    if (r === 'invalid' || r.length > HEADER_LIMIT || !this.declared(r.name)) {
      this.out.text(CALL_BEGIN);
      this.state = PASS;
      return true;
    }
    this.consumeTo(r.length);
    const tool = this.out.startCall(r.name);
    this.args = new JsonArgsReader(this.out, tool, 0, NonObject.Skip, MODEL_JSON, true);
    this.state = ARGS;
    return true;
  }

  private stepArgs(): boolean {
    const at = this.upTo(this.callEnd);
    const marker = this.hit;
    const r = this.args as JsonArgsReader;
    // Text after the JSON value (or after it broke) up to the end marker is ignored.
    r.step(this.buf, false, at);
    this.pos = at;
    r.rebase(this.dropConsumed());
    if (marker === '') return false;
    this.consumeTo(marker === CALL_END ? CALL_END.length : 0);
    this.closeCall();
    return true;
  }

  private stepPass(): boolean {
    const marker = this.scanText(this.callEnd);
    if (marker === null) return false;
    if (marker === CALL_END) {
      this.out.text(CALL_END);
      this.consumeTo(this.pos + CALL_END.length);
    } else this.consumeTo(this.pos);
    this.state = this.outside;
    return true;
  }

  private closeCall(): void {
    (this.args as JsonArgsReader).cutOff();
    this.args = null;
    this.state = this.outside;
  }
}

export const kimiK2ToolParser = toolParserSpec('kimik2', (tools: readonly ToolSchema[]) => new KimiK2Parser(tools));
