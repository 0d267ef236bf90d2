/**
 * One streaming state machine for the tool-call formats that spell a call as tags around a name
 * and key/value pairs: GLM (`<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…`),
 * MiniMax-M2 (`<invoke name="N"><parameter name="K">V</parameter>…`), Step-3 (steptml) and
 * Kimi-K3 (XTML). Each format supplies its markers and two small readers (call header, parameter
 * header; tag-headers.ts); the machine does the rest:
 *
 *   text ─callOpen / section open─▶ [section] ─callOpen─▶ header ─declared name─▶ body ⇄ param/value
 *
 * - Text outside calls is released as soon as it cannot be the start of a marker.
 * - `tool_start` is emitted once the header is complete and names a declared tool; the argument
 *   object is then streamed (args-object.ts): `{`, each member as its value completes, string-typed
 *   values as they arrive (tag-value.ts), `}` at the close tag. A repeated key keeps its first value.
 * - A call naming an undeclared tool, or whose header is not well formed, stays text verbatim,
 *   from its opening tag through its closing tag.
 * - Anything between tags inside a section or a call that is not a tag (newlines, stray text) is
 *   not content and is dropped. Section wrappers themselves are framing and never shown.
 * - A call cut off by the end of the stream is closed with the arguments complete so far (a
 *   string value in progress is kept; a typed value without its close tag is dropped): once
 *   `tool_start` is out it cannot be taken back.
 *
 * Every state but plain text reads the buffer from its start (each step consumes what it read).
 */
import { PARSER_BUFFER_LIMIT } from '../types.js';
import { ArgsObjectWriter } from './args-object.js';
import type { MarkerFinder } from './marker-finder.js';
import { ParamTypes, typedValueJson, type ValueTyping } from './param-typing.js';
import { ToolStreamParser } from './stream-base.js';
import { limited, type HeaderRead, type ParamRead } from './tag-headers.js';
import { TagValue, ValueMode as ModeEnum } from './tag-value.js';
import type { ToolSchema } from './types.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const ValueMode = ModeEnum;

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

/** The marker lists a format's states search, derived once per format. */
interface FormatMarkers {
  readonly text: readonly string[];
  readonly section: readonly string[];
  readonly body: readonly string[];
  readonly value: readonly string[];
  readonly pass: readonly string[];
  readonly startChars: string;
}

const formatMarkers = new WeakMap<TaggedCallFormat, FormatMarkers>();

function markersOf(f: TaggedCallFormat): FormatMarkers {
  let m = formatMarkers.get(f);
  if (m === undefined) {
    const sectionClose = f.section?.close ?? [];
    const text = [...(f.section ? f.section.open : [f.callOpen]), ...(f.dropFromText ?? [])];
    m = {
      text,
      section: [f.callOpen, ...sectionClose],
      body: [f.paramOpen, ...f.callClose, ...sectionClose, f.callOpen],
      value: [f.valueClose, ...f.callClose, ...sectionClose, f.callOpen],
      pass: [...f.passthroughEnd, ...sectionClose, f.callOpen],
      startChars: [...new Set(text.map((s) => s[0]))].join(''),
    };
    formatMarkers.set(f, m);
  }
  return m;
}

const TEXT = 0;
const SECTION = 1;
const HEADER = 2;
const BODY = 3;
const PARAM = 4;
const VALUE = 5;
const PASS = 6;

export class TaggedCallParser extends ToolStreamParser {
  protected readonly startChars: string;
  private state = TEXT;
  private readonly textSet: MarkerFinder;
  private readonly sectionSet: MarkerFinder;
  private readonly bodySet: MarkerFinder;
  private readonly valueSet: MarkerFinder;
  private readonly passSet: MarkerFinder;
  private tool = -1;
  private writer: ArgsObjectWriter | null = null;
  private schema: ParamTypes | null = null;
  private key = '';
  private typing: ValueTyping = { stream: true };
  private value: TagValue | null = null;

  constructor(
    private readonly f: TaggedCallFormat,
    tools: readonly ToolSchema[],
  ) {
    super(tools);
    const m = markersOf(f);
    this.startChars = m.startChars;
    this.textSet = this.markerSet(m.text);
    this.sectionSet = this.markerSet(m.section);
    this.bodySet = this.markerSet(m.body);
    this.valueSet = this.markerSet(m.value);
    this.passSet = this.markerSet(m.pass);
  }

  protected inPlainText(): boolean {
    return this.state === TEXT;
  }

  protected run(): void {
    while (this.step()) {
      /* keep stepping */
    }
    if (this.final && this.writer !== null) this.closeCall();
  }

  private step(): boolean {
    switch (this.state) {
      case TEXT:
        return this.stepText();
      case SECTION:
        return this.stepSection();
      case HEADER:
        return this.stepHeader();
      case BODY:
        return this.stepBody();
      case PARAM:
        return this.stepParam();
      case VALUE:
        return this.stepValue();
      default:
        return this.stepPass();
    }
  }

  /** Where to go after a call (or a passed-through one) ends. */
  private get outside(): number {
    return this.f.section ? SECTION : TEXT;
  }

  private stepText(): boolean {
    const marker = this.scanText(this.textSet);
    if (marker === null) return false;
    this.consumeTo(this.pos + marker.length);
    if (this.f.dropFromText?.includes(marker)) return true;
    this.state = this.f.section ? SECTION : HEADER;
    return true;
  }

  private stepSection(): boolean {
    const at = this.upTo(this.sectionSet);
    const marker = this.hit;
    this.consumeTo(at + marker.length);
    if (marker === '') return false;
    this.state = marker === this.f.callOpen ? HEADER : TEXT;
    return true;
  }

  private stepHeader(): boolean {
    const r = limited(this.f.readHeader(this.buf, this.final), this.buf.length, this.final);
    if (r === 'more') return false;
    if (r === 'invalid' || !this.declared(r.name)) {
      // Not a call we can report: its text, from the opening tag on, stays content.
      this.out.text(this.f.callOpen);
      this.state = PASS;
      return true;
    }
    this.consumeTo(r.length);
    this.writer = new ArgsObjectWriter();
    this.schema = new ParamTypes(this.schemaOf(r.name));
    this.tool = this.out.startCall(r.name);
    this.out.args(this.tool, this.writer.open());
    this.state = BODY;
    return true;
  }

  private stepPass(): boolean {
    const marker = this.scanText(this.passSet);
    if (marker === null) return false;
    if (this.f.passthroughEnd.includes(marker)) {
      this.out.text(marker);
      this.consumeTo(this.pos + marker.length);
    } else this.consumeTo(this.pos);
    this.state = this.outside;
    return true;
  }

  private stepBody(): boolean {
    const at = this.upTo(this.bodySet);
    const marker = this.hit;
    if (marker === '') {
      this.consumeTo(at);
      return false;
    }
    if (marker === this.f.paramOpen) {
      this.consumeTo(at + marker.length);
      this.state = PARAM;
    } else if (this.f.callClose.includes(marker)) {
      this.consumeTo(at + marker.length);
      this.closeCall();
    } else {
      // A section close or a new call before this one's close tag: it ends here.
      this.consumeTo(at);
      this.closeCall();
    }
    return true;
  }

  private stepParam(): boolean {
    const r = limited(this.f.readParam(this.buf, this.final), this.buf.length, this.final);
    if (r === 'more') return false;
    if (r === 'invalid') {
      this.state = BODY; // the body skips the malformed header up to the next tag
      return true;
    }
    this.consumeTo(r.length);
    const w = this.writer as ArgsObjectWriter;
    this.key = r.key;
    this.typing = this.f.typing(r.key, r.type, this.schema as ParamTypes);
    const mode = w.isRepeat(r.key) ? ValueMode.Skip : this.typing.stream ? ValueMode.Stream : ValueMode.Buffer;
    if (mode === ValueMode.Stream) this.out.args(this.tool, w.beginString(r.key));
    this.value = new TagValue(this.out, this.tool, w, mode, false, PARSER_BUFFER_LIMIT);
    this.state = VALUE;
    return true;
  }

  private stepValue(): boolean {
    const v = this.value as TagValue;
    const at = v.read(this.buf, 0, this.final, this.valueSet, this.dropped);
    if (v.end === '') {
      this.consumeTo(at);
      return false;
    }
    this.consumeTo(v.end === this.f.valueClose ? at + v.end.length : at);
    const w = this.writer as ArgsObjectWriter;
    if (v.mode === ValueMode.Stream) this.out.args(this.tool, w.endString());
    else if (v.mode === ValueMode.Buffer && !v.overflow && !this.typing.stream) {
      this.out.args(this.tool, w.member(this.key, typedValueJson(v.raw, this.typing.types)));
    }
    this.value = null;
    this.state = BODY;
    return true;
  }

  private closeCall(): void {
    this.out.args(this.tool, (this.writer as ArgsObjectWriter).close());
    this.writer = null;
    this.schema = null;
    this.value = null;
    this.state = this.outside;
  }
}
