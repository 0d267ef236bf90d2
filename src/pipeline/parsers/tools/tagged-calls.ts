/**
 * One streaming state machine for the tool-call formats that spell a call as tags around a name
 * and key/value pairs: GLM (`<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…`),
 * MiniMax-M2 (`<invoke name="N"><parameter name="K">V</parameter>…`), Step-3 (steptml) and
 * Kimi-K3 (XTML). Each format supplies its markers and two small readers (call header, parameter
 * header); the machine does the rest:
 *
 *   text ─callOpen / section open─▶ [section] ─callOpen─▶ header ─declared name─▶ body ⇄ param/value
 *
 * - Text outside calls is released as soon as it cannot be the start of a marker.
 * - `tool_start` is emitted once the header is complete and names a declared tool; the argument
 *   object is then streamed (xml-args.ts): `{`, each member as its value completes, string-typed
 *   values as they arrive, `}` at the close tag.
 * - A call naming an undeclared tool, or whose header is not well formed, stays text verbatim,
 *   from its opening tag through its closing tag.
 * - Anything between tags inside a section or a call that is not a tag (newlines, stray text) is
 *   not content and is dropped. Section wrappers themselves are framing and never shown.
 * - A call cut off by the end of the stream is closed with the arguments complete so far (a
 *   string value in progress is kept; a typed value without its close tag is dropped): once
 *   `tool_start` is out it cannot be taken back.
 */
import type { ToolSchema } from './types.js';
import { ArgsObjectWriter, ParamTypes, typedValueJson, type ValueTyping } from './xml-args.js';
import { HEADER_LIMIT, MarkerSet, TokenStreamParser } from './token-stream-base.js';
import { PARSER_BUFFER_LIMIT } from '../types.js';

export type HeaderRead = { name: string; length: number } | 'more' | 'invalid';
export type ParamRead = { key: string; type?: string; length: number } | 'more' | 'invalid';

export interface TaggedCallFormat {
  /** Wrapper around a group of calls; absent when every call stands alone (GLM). */
  readonly section?: { readonly open: readonly string[]; readonly close: readonly string[] };
  /** Channel framing removed from text outside calls. */
  readonly dropFromText?: readonly string[];
  readonly callOpen: string;
  /** Reads the header that follows `callOpen` (`buf` starts right after it). */
  readHeader(buf: string, final: boolean): HeaderRead;
  /** Tags that end a call. */
  readonly callClose: readonly string[];
  /** An undeclared call is shown as text up to and including the first of these. */
  readonly passthroughEnd: readonly string[];
  readonly paramOpen: string;
  /** Reads a parameter header (`buf` starts right after `paramOpen`; `length` reaches the value). */
  readParam(buf: string, final: boolean): ParamRead;
  readonly valueClose: string;
  /** How a value is written, from the schema or the format's own type attribute. */
  typing(key: string, typeAttr: string | undefined, schema: ParamTypes): ValueTyping;
}

const TEXT = 0;
const SECTION = 1;
const HEADER = 2;
const BODY = 3;
const PARAM = 4;
const VALUE = 5;
const PASS = 6;

interface Markers {
  text: MarkerSet;
  section: MarkerSet;
  body: MarkerSet;
  value: MarkerSet;
  pass: MarkerSet;
}

const markerCache = new WeakMap<TaggedCallFormat, Markers>();

function markersOf(f: TaggedCallFormat): Markers {
  let m = markerCache.get(f);
  if (!m) {
    const sectionClose = f.section?.close ?? [];
    m = {
      text: new MarkerSet([...(f.section ? f.section.open : [f.callOpen]), ...(f.dropFromText ?? [])]),
      section: new MarkerSet([f.callOpen, ...sectionClose]),
      body: new MarkerSet([f.paramOpen, ...f.callClose, ...sectionClose, f.callOpen]),
      value: new MarkerSet([f.valueClose, ...f.callClose, ...sectionClose, f.callOpen]),
      pass: new MarkerSet([...f.passthroughEnd, ...sectionClose, f.callOpen]),
    };
    markerCache.set(f, m);
  }
  return m;
}

export class TaggedCallParser extends TokenStreamParser {
  private state = TEXT;
  private readonly m: Markers;
  private writer: ArgsObjectWriter | null = null;
  private schema: ParamTypes | null = null;
  private key = '';
  private typing: ValueTyping = { stream: true };
  private skipValue = false;
  private raw = '';

  constructor(
    private readonly f: TaggedCallFormat,
    tools: readonly ToolSchema[],
  ) {
    super(tools);
    this.m = markersOf(f);
  }

  protected step(final: boolean): boolean {
    switch (this.state) {
      case TEXT:
        return this.stepText(final);
      case SECTION:
        return this.stepSection(final);
      case HEADER:
        return this.stepHeader(final);
      case BODY:
        return this.stepBody(final);
      case PARAM:
        return this.stepParam(final);
      case VALUE:
        return this.stepValue(final);
      default:
        return this.stepPass(final);
    }
  }

  protected atEnd(): void {
    if (this.writer) this.closeCall();
  }

  /** Where to go after a call (or a passed-through one) ends. */
  private get outside(): number {
    return this.f.section ? SECTION : TEXT;
  }

  private stepText(final: boolean): boolean {
    const buf = this.buf;
    const hit = this.m.text.find(buf);
    if (hit) {
      const [i, marker] = hit;
      this.text(buf.slice(0, i));
      this.consume(i + marker.length);
      if (this.f.dropFromText?.includes(marker)) return true;
      this.state = this.f.section ? SECTION : HEADER;
      return true;
    }
    const keep = final ? 0 : this.m.text.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private stepSection(final: boolean): boolean {
    const hit = this.m.section.find(this.buf);
    if (hit) {
      const [i, marker] = hit;
      this.consume(i + marker.length);
      this.state = marker === this.f.callOpen ? HEADER : TEXT;
      return true;
    }
    this.consume(this.buf.length - (final ? 0 : this.m.section.held(this.buf)));
    return false;
  }

  private stepHeader(final: boolean): boolean {
    const r = limited(this.f.readHeader(this.buf, final), this.buf.length, final);
    if (r === 'more') return false;
    const tool = r === 'invalid' ? undefined : this.declared.get(r.name);
    if (r === 'invalid' || !tool) {
      // Not a call we can report: its text, from the opening tag on, stays content.
      this.text(this.f.callOpen);
      this.state = PASS;
      return true;
    }
    this.consume(r.length);
    this.writer = new ArgsObjectWriter();
    this.schema = new ParamTypes(tool);
    this.startCall(r.name);
    this.args(this.writer.open());
    this.state = BODY;
    return true;
  }

  private stepPass(final: boolean): boolean {
    const buf = this.buf;
    const hit = this.m.pass.find(buf);
    if (hit) {
      const [i, marker] = hit;
      const end = this.f.passthroughEnd.includes(marker) ? i + marker.length : i;
      this.text(buf.slice(0, end));
      this.consume(end);
      this.state = this.outside;
      return true;
    }
    const keep = final ? 0 : this.m.pass.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private stepBody(final: boolean): boolean {
    const hit = this.m.body.find(this.buf);
    if (!hit) {
      this.consume(this.buf.length - (final ? 0 : this.m.body.held(this.buf)));
      return false;
    }
    const [i, marker] = hit;
    if (marker === this.f.paramOpen) {
      this.consume(i + marker.length);
      this.state = PARAM;
    } else if (this.f.callClose.includes(marker)) {
      this.consume(i + marker.length);
      this.closeCall();
    } else {
      // A section close or a new call before this one's close tag: it ends here.
      this.consume(i);
      this.closeCall();
    }
    return true;
  }

  private stepParam(final: boolean): boolean {
    const r = limited(this.f.readParam(this.buf, final), this.buf.length, final);
    if (r === 'more') return false;
    if (r === 'invalid') {
      this.state = BODY; // the body skips the malformed header up to the next tag
      return true;
    }
    this.consume(r.length);
    const w = this.writer!;
    this.key = r.key;
    this.typing = this.f.typing(r.key, r.type, this.schema!);
    this.skipValue = w.isRepeat(r.key);
    this.raw = '';
    if (this.typing.stream && !this.skipValue) this.args(w.beginString(r.key));
    this.state = VALUE;
    return true;
  }

  private stepValue(final: boolean): boolean {
    const buf = this.buf;
    const hit = this.m.value.find(buf);
    const end = hit ? hit[0] : buf.length - (final ? 0 : this.m.value.held(buf));
    this.valueText(buf.slice(0, end));
    if (!hit) {
      this.consume(end);
      return false;
    }
    const marker = hit[1];
    this.consume(marker === this.f.valueClose ? end + marker.length : end);
    this.endValue();
    this.state = BODY;
    return true;
  }

  private valueText(s: string): void {
    if (this.skipValue || s.length === 0) return;
    if (this.typing.stream) this.args(this.writer!.stringChunk(s));
    else if (this.raw.length + s.length <= PARSER_BUFFER_LIMIT) this.raw += s;
    else this.skipValue = true; // an oversized typed value is dropped rather than buffered
  }

  private endValue(): void {
    if (this.skipValue) return;
    const w = this.writer!;
    if (this.typing.stream) this.args(w.endString());
    else this.args(w.member(this.key, typedValueJson(this.raw, this.typing.types)));
    this.raw = '';
  }

  private closeCall(): void {
    this.args(this.writer!.close());
    this.writer = null;
    this.schema = null;
    this.endCall();
    this.state = this.outside;
  }
}

/**
 * Headers longer than HEADER_LIMIT are not headers. Judged on the header's own length, so that a
 * streamed parse (which gives up while waiting) and a whole-text parse decide alike.
 */
function limited<T extends { length: number }>(r: T | 'more' | 'invalid', buffered: number, final: boolean): T | 'more' | 'invalid' {
  if (r === 'more') return final || buffered > HEADER_LIMIT ? 'invalid' : 'more';
  if (r !== 'invalid' && r.length > HEADER_LIMIT) return 'invalid';
  return r;
}

// ---- Small readers shared by the formats ----

const ATTR = /([A-Za-z_][\w:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** `key="value"` pairs of a tag's attribute text (XML entities for `"` and `&` decoded). */
export function readAttributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(ATTR)) {
    const v = m[2] ?? m[3] ?? '';
    out.set(m[1], v.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
  }
  return out;
}

/**
 * Reads `␠name="X">` (the rest of `<invoke`, `<parameter`, …): the name attribute and the length
 * through `>`. An unquoted value is accepted too; a `<` before the `>` means it is not a tag.
 */
export function readNameAttribute(buf: string, final: boolean): { name: string; length: number } | 'more' | 'invalid' {
  let gt = -1;
  for (let i = 0; i < buf.length; i++) {
    const c = buf.charCodeAt(i);
    if (c === 0x3c) return 'invalid';
    if (c === 0x3e) {
      gt = i;
      break;
    }
  }
  if (gt < 0) return final ? 'invalid' : 'more';
  const m = /^\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'/]+))\s*\/?$/.exec(buf.slice(0, gt));
  if (!m) return 'invalid';
  return { name: (m[1] ?? m[2] ?? m[3]).trim(), length: gt + 1 };
}

/**
 * Matches `literal` at `pos`: the position after it, 'more' when the buffer ends inside it, or
 * 'invalid'. Used to read fixed header syntax a character at a time.
 */
export function expectLiteral(buf: string, pos: number, literal: string): number | 'more' | 'invalid' {
  const rest = buf.length - pos;
  if (rest >= literal.length) return buf.startsWith(literal, pos) ? pos + literal.length : 'invalid';
  return literal.startsWith(buf.slice(pos)) ? 'more' : 'invalid';
}

/** The first index at or after `pos` that is not whitespace (buf.length if none). */
export function skipSpace(buf: string, pos: number): number {
  let i = pos;
  while (i < buf.length) {
    const c = buf.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}
