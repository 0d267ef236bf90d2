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
 * streamed as compact JSON in written key order (json-stream.ts, json-compact-writer.ts); broken
 * or truncated argument JSON ends as the valid JSON read so far (SMG and vLLM drop such a call in
 * one path and stream it raw in the other). A call begun outside a section is parsed the same
 * way. A call naming an undeclared tool stays text, `<|tool_call_begin|>` through
 * `<|tool_call_end|>`; the section markers are framing and never shown.
 */
import type { ToolParserSpec, ToolSchema } from './types.js';
import { JsonTokenizer } from './json-stream.js';
import { CompactJsonWriter } from './json-compact-writer.js';
import { HEADER_LIMIT, MarkerSet, TokenStreamParser, wholeText } from './token-stream-base.js';
import { expectLiteral } from './tag-headers.js';

const SECTION_BEGIN = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'];
const SECTION_END = ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'];
const CALL_BEGIN = '<|tool_call_begin|>';
const ARG_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

const TEXT_MARKERS = new MarkerSet([...SECTION_BEGIN, CALL_BEGIN]);
const SECTION_MARKERS = new MarkerSet([CALL_BEGIN, ...SECTION_END]);
const ARGS_END = new MarkerSet([CALL_END, ...SECTION_END, CALL_BEGIN]);
const PASS_END = new MarkerSet([CALL_END, ...SECTION_END, CALL_BEGIN]);

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

class KimiK2Parser extends TokenStreamParser {
  private state = TEXT;
  /** Inside a section (else a bare call: back to text after it). */
  private inSection = false;
  private tok: JsonTokenizer | null = null;
  private writer: CompactJsonWriter | null = null;

  protected step(final: boolean): boolean {
    switch (this.state) {
      case TEXT:
        return this.stepText(final);
      case SECTION:
        return this.stepSection(final);
      case HEADER:
        return this.stepHeader(final);
      case ARGS:
        return this.stepArgs(final);
      default:
        return this.stepPass(final);
    }
  }

  protected atEnd(): void {
    if (this.writer) this.closeCall();
  }

  private stepText(final: boolean): boolean {
    const buf = this.buf;
    const hit = TEXT_MARKERS.find(buf);
    if (hit) {
      this.text(buf.slice(0, hit[0]));
      this.consume(hit[0] + hit[1].length);
      this.inSection = hit[1] !== CALL_BEGIN;
      this.state = this.inSection ? SECTION : HEADER;
      return true;
    }
    const keep = final ? 0 : TEXT_MARKERS.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private stepSection(final: boolean): boolean {
    const hit = SECTION_MARKERS.find(this.buf);
    if (hit) {
      this.consume(hit[0] + hit[1].length);
      this.state = hit[1] === CALL_BEGIN ? HEADER : TEXT;
      return true;
    }
    this.consume(this.buf.length - (final ? 0 : SECTION_MARKERS.held(this.buf)));
    return false;
  }

  private stepHeader(final: boolean): boolean {
    let r = readCallId(this.buf, final);
    if (r === 'more' && this.buf.length > HEADER_LIMIT) r = 'invalid';
    if (r === 'more') return false;
    if (r === 'invalid' || r.length > HEADER_LIMIT || !this.declared.has(r.name)) {
      this.text(CALL_BEGIN);
      this.state = PASS;
      return true;
    }
    this.consume(r.length);
    this.writer = new CompactJsonWriter(true);
    this.tok = new JsonTokenizer(this.writer);
    this.startCall(r.name);
    this.state = ARGS;
    return true;
  }

  private stepArgs(final: boolean): boolean {
    const buf = this.buf;
    const hit = ARGS_END.find(buf);
    const end = hit ? hit[0] : buf.length - (final ? 0 : ARGS_END.held(buf));
    // Text after the JSON value (or after it broke) up to the end marker is ignored.
    this.tok!.write(buf.slice(0, end));
    this.args(this.writer!.take());
    if (!hit) {
      this.consume(end);
      return false;
    }
    this.consume(hit[1] === CALL_END ? end + CALL_END.length : end);
    this.closeCall();
    return true;
  }

  private stepPass(final: boolean): boolean {
    const buf = this.buf;
    const hit = PASS_END.find(buf);
    if (hit) {
      const end = hit[1] === CALL_END ? hit[0] + CALL_END.length : hit[0];
      this.text(buf.slice(0, end));
      this.consume(end);
      this.state = this.inSection ? SECTION : TEXT;
      return true;
    }
    const keep = final ? 0 : PASS_END.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private closeCall(): void {
    this.tok!.end();
    const w = this.writer!;
    const rest = w.close();
    this.args(w.started ? rest : '{}');
    this.tok = null;
    this.writer = null;
    this.endCall();
    this.state = this.inSection ? SECTION : TEXT;
  }
}

const create = (tools: readonly ToolSchema[]) => new KimiK2Parser(tools);

export const kimiK2ToolParser: ToolParserSpec = {
  name: 'kimik2',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
