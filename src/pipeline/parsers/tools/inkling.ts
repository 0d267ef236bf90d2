/**
 * `inkling`: Inkling's TML typed message blocks (every marker is a special token). A tool call
 * is a model message whose header names the function and whose content is a JSON invocation:
 *
 *   <|message_model|>NAME<|content_invoke_tool_json|>{"name":"NAME","args":{…}}<|end_message|>
 *   <|message_model|><|content_text|>visible text<|end_message|>
 *   …<|content_model_end_sampling|>
 *
 * Sources: vLLM vllm/parser/inkling.py (the block grammar: header text between
 * `<|message_model|>` and the content-kind token is metadata; blocks end with `<|end_message|>`
 * or `<|content_model_end_sampling|>`; arguments under `args`, also `arguments`/`parameters`;
 * generation usually starts inside a header because the prompt ends with `<|message_model|>`),
 * smg-project/smg crates/tool_parser/src/parsers/inkling.rs, SGLang's InklingDetector, and a
 * published template test rendering a past call as
 * `<|message_model|>read_file<|content_invoke_tool_json|>{"args":{…},"name":"read_file"}<|end_message|>`
 * (keys sorted: `args` before `name`). No model card or tokenizer config was available to check
 * token spellings against.
 *
 * Because the template puts `args` first, the header name is what makes streaming possible: when
 * the header names a declared tool, `tool_start` goes out at `<|content_invoke_tool_json|>` and
 * the arguments stream as they arrive (the payload's own `name` is then not consulted). Without
 * a usable header name the payload's `name` decides, and arguments before it are held.
 *
 * Text: control tokens are removed and header text is dropped, as in SMG; output that starts
 * with a header (no `<|message_model|>`, since the prompt supplied it) is recognized while it
 * looks like a function name. `<|content_invoke_tool_text|>` (a free-text invocation, which has
 * no OpenAI shape) keeps its body as text like vLLM (SMG suppresses it). An invocation whose
 * name is undeclared or whose payload is not a call object stays text (its JSON; control tokens
 * are never shown); SMG suppresses those too.
 */
import { type CallShape, MODEL_SYNTAX } from './json-call.js';
import { JsonListParser } from './json-list.js';
import { Next as NextEnum, toolParserSpec } from './stream-base.js';
import { HEADER_LIMIT, skipSpace } from './tag-headers.js';
import type { ToolSchema } from './types.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const Next = NextEnum;

const MESSAGE_MODEL = '<|message_model|>';
const INVOKE_JSON = '<|content_invoke_tool_json|>';
const END_MESSAGE = '<|end_message|>';
const END_SAMPLING = '<|content_model_end_sampling|>';
/** Content kinds whose body is shown as text. */
const TEXT_KINDS = ['<|content_text|>', '<|content_thinking|>', '<|content_invoke_tool_text|>', '<|content_tool_error|>'];
const ENDS = [END_MESSAGE, END_SAMPLING];
const BLOCK_MARKERS = [MESSAGE_MODEL, INVOKE_JSON, ...TEXT_KINDS, ...ENDS];
const PAYLOAD_END = [...ENDS, MESSAGE_MODEL];

const SHAPE: CallShape = { nameKey: 'name', argKeys: ['args', 'arguments', 'parameters'], objectArgs: true, syntax: MODEL_SYNTAX };

/** Start of output: possibly a header whose `<|message_model|>` was in the prompt. */
const LEAD = 0;
const TEXT = 1;
const HEADER = 2;
const PAYLOAD = 3;
/** After the payload's JSON: an end marker may follow (then consumed), else text resumes. */
const AFTER = 4;
/** The payload broke after its call was reported: ignored up to the block end. */
const SKIP = 5;

const NAME_LIKE = /^[A-Za-z0-9_.:-]*$/;

/** Every state but plain text reads the buffer from its start (each step consumes what it read). */
class InklingParser extends JsonListParser {
  protected readonly startChars = '<';
  protected override shape = SHAPE;
  protected override framed = true;
  private state = LEAD;
  /** Block markers: what text runs up to, and what ends a header. */
  private readonly blockSet = this.markerSet(BLOCK_MARKERS);
  private readonly payloadEnd = this.markerSet(PAYLOAD_END);

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
      case TEXT:
        return this.stepText();
      case HEADER:
        return this.stepHeader();
      case PAYLOAD:
        return this.stepPayload();
      case AFTER:
        return this.stepAfter();
      default:
        return this.stepSkip();
    }
  }

  private stepLead(): boolean {
    const at = this.upTo(this.blockSet);
    const marker = this.hit;
    const head = this.buf.slice(0, at);
    const nameLike = head.length <= HEADER_LIMIT && NAME_LIKE.test(head.trim());
    if (marker === '') {
      if (nameLike && !this.final) return false;
      this.state = TEXT;
      return true;
    }
    this.state = nameLike && marker !== MESSAGE_MODEL && !ENDS.includes(marker) ? HEADER : TEXT;
    return true;
  }

  private stepText(): boolean {
    const marker = this.scanText(this.blockSet);
    if (marker === null) return false;
    this.consumeTo(this.pos + marker.length);
    if (marker === MESSAGE_MODEL) this.state = HEADER;
    else if (marker === INVOKE_JSON) this.openPayload('');
    return true;
  }

  /** Header text (author, function name) is metadata up to the content-kind token. */
  private stepHeader(): boolean {
    const buf = this.buf;
    // Judged without the end of the stream, as a streamed parse sees it.
    const at = this.locate(this.blockSet, 0);
    const marker = this.blockSet.located;
    const length = at !== -1 ? at : this.blockSet.partialStart(buf, 0);
    if (length > HEADER_LIMIT) {
      this.state = TEXT; // too long for a header: it is text after all
      return true;
    }
    if (at === -1) {
      if (this.final) this.consumeTo(buf.length);
      return false;
    }
    const header = buf.slice(0, at).trim();
    this.consumeTo(at + marker.length);
    if (marker === INVOKE_JSON) this.openPayload(header);
    else if (marker !== MESSAGE_MODEL) this.state = TEXT;
    return true;
  }

  private openPayload(header: string): void {
    // When the header names a declared tool, the call starts now and its arguments stream as they come.
    const preset = header && this.declared(header) ? this.out.startCall(header) : -1;
    this.setCand(this.pos);
    this.startPayload(false, preset);
    this.state = PAYLOAD;
  }

  private stepPayload(): boolean {
    this.boundBy(this.payloadEnd);
    const next = this.stepList();
    this.unbound();
    if (next === Next.Wait) return false;
    // Not a call: its JSON stays text (the control tokens around it are not shown).
    this.state = next === Next.Done ? AFTER : next === Next.Broken ? SKIP : TEXT;
    this.consumeTo(this.pos);
    return true;
  }

  private stepAfter(): boolean {
    const buf = this.buf;
    const pos = skipSpace(buf, 0);
    if (pos === buf.length && !this.final) return false;
    for (const m of ENDS) {
      if (buf.startsWith(m, pos)) {
        this.consumeTo(pos + m.length);
        this.state = TEXT;
        return true;
      }
    }
    if (!this.final && ENDS.some((m) => m.length > buf.length - pos && m.startsWith(buf.slice(pos)))) return false;
    this.state = TEXT;
    return true;
  }

  private stepSkip(): boolean {
    const at = this.upTo(this.payloadEnd);
    const marker = this.hit;
    if (marker === '') {
      this.consumeTo(at);
      return false;
    }
    this.consumeTo(marker === MESSAGE_MODEL ? at : at + marker.length);
    this.state = TEXT;
    return true;
  }
}

export const inklingToolParser = toolParserSpec('inkling', (tools: readonly ToolSchema[]) => new InklingParser(tools));
