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
import type { ToolParserSpec, ToolSchema } from './types.js';
import { JsonCallRegion, type CallShape } from './json-calls.js';
import { HEADER_LIMIT, MarkerSet, TokenStreamParser, wholeText } from './token-stream-base.js';
import { skipSpace } from './tag-headers.js';

const MESSAGE_MODEL = '<|message_model|>';
const INVOKE_JSON = '<|content_invoke_tool_json|>';
const END_MESSAGE = '<|end_message|>';
const END_SAMPLING = '<|content_model_end_sampling|>';
/** Content kinds whose body is shown as text. */
const TEXT_KINDS = ['<|content_text|>', '<|content_thinking|>', '<|content_invoke_tool_text|>', '<|content_tool_error|>'];
const ENDS = [END_MESSAGE, END_SAMPLING];

const TEXT_MARKERS = new MarkerSet([MESSAGE_MODEL, INVOKE_JSON, ...TEXT_KINDS, ...ENDS]);
const HEADER_END = new MarkerSet([MESSAGE_MODEL, INVOKE_JSON, ...TEXT_KINDS, ...ENDS]);
const PAYLOAD_END = new MarkerSet([...ENDS, MESSAGE_MODEL]);
const END_MARKERS = new MarkerSet(ENDS);

const SHAPE: CallShape = { nameKey: 'name', argsKeys: ['args', 'arguments', 'parameters'], python: false, list: false };

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

class InklingParser extends TokenStreamParser {
  private state = LEAD;
  private region: JsonCallRegion | null = null;

  protected step(final: boolean): boolean {
    switch (this.state) {
      case LEAD:
        return this.stepLead(final);
      case TEXT:
        return this.stepText(final);
      case HEADER:
        return this.stepHeader(final);
      case PAYLOAD:
        return this.stepPayload(final);
      case AFTER:
        return this.stepAfter(final);
      default:
        return this.stepSkip(final);
    }
  }

  protected atEnd(): void {
    if (this.region) this.endRegion();
  }

  private stepLead(final: boolean): boolean {
    const buf = this.buf;
    const hit = HEADER_END.find(buf);
    const head = hit ? buf.slice(0, hit[0]) : buf.slice(0, buf.length - (final ? 0 : HEADER_END.held(buf)));
    const nameLike = head.length <= HEADER_LIMIT && NAME_LIKE.test(head.trim());
    if (!hit) {
      if (nameLike && !final) return false;
      this.state = TEXT;
      return true;
    }
    this.state = nameLike && hit[1] !== MESSAGE_MODEL && !ENDS.includes(hit[1]) ? HEADER : TEXT;
    return true;
  }

  private stepText(final: boolean): boolean {
    const buf = this.buf;
    const hit = TEXT_MARKERS.find(buf);
    if (hit) {
      this.text(buf.slice(0, hit[0]));
      this.consume(hit[0] + hit[1].length);
      if (hit[1] === MESSAGE_MODEL) this.state = HEADER;
      else if (hit[1] === INVOKE_JSON) this.openPayload('');
      return true;
    }
    const keep = final ? 0 : TEXT_MARKERS.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  /** Header text (author, function name) is metadata up to the content-kind token. */
  private stepHeader(final: boolean): boolean {
    const buf = this.buf;
    const hit = HEADER_END.find(buf);
    const length = hit ? hit[0] : buf.length - HEADER_END.held(buf);
    if (length > HEADER_LIMIT) {
      this.state = TEXT; // too long for a header: it is text after all
      return true;
    }
    if (!hit) {
      if (final) this.consume(buf.length);
      return false;
    }
    const header = buf.slice(0, hit[0]).trim();
    this.consume(hit[0] + hit[1].length);
    if (hit[1] === INVOKE_JSON) this.openPayload(header);
    else if (hit[1] !== MESSAGE_MODEL) this.state = TEXT;
    return true;
  }

  private openPayload(header: string): void {
    const preset = header && this.declared.has(header) ? header : undefined;
    this.region = new JsonCallRegion(SHAPE, this.declared, this.emitter, preset);
    this.state = PAYLOAD;
  }

  private stepPayload(final: boolean): boolean {
    const buf = this.buf;
    const hit = PAYLOAD_END.find(buf);
    const end = hit ? hit[0] : buf.length - (final ? 0 : PAYLOAD_END.held(buf));
    const region = this.region!;
    this.consume(region.write(buf.slice(0, end)));
    if (region.finished && !region.abandoned) {
      const broken = region.broken;
      this.endRegion();
      this.state = broken ? SKIP : AFTER;
      return true;
    }
    if (!region.abandoned && !hit) return false;
    this.endRegion(); // an end marker left in `buf` is dropped by the text state
    return true;
  }

  private endRegion(): void {
    const region = this.region!;
    region.end();
    // Not a call: its JSON stays text (the control tokens around it are not shown).
    if (region.abandoned) this.text(region.rawText);
    this.region = null;
    this.state = TEXT;
  }

  private stepAfter(final: boolean): boolean {
    const buf = this.buf;
    const pos = skipSpace(buf, 0);
    if (pos === buf.length && !final) return false;
    const rest = buf.slice(pos);
    for (const m of ENDS) {
      if (rest.startsWith(m)) {
        this.consume(pos + m.length);
        this.state = TEXT;
        return true;
      }
    }
    if (!final && END_MARKERS.held(rest) === rest.length) return false;
    this.state = TEXT;
    return true;
  }

  private stepSkip(final: boolean): boolean {
    const buf = this.buf;
    const hit = PAYLOAD_END.find(buf);
    if (!hit) {
      this.consume(buf.length - (final ? 0 : PAYLOAD_END.held(buf)));
      return false;
    }
    this.consume(hit[1] === MESSAGE_MODEL ? hit[0] : hit[0] + hit[1].length);
    this.state = TEXT;
    return true;
  }
}

const create = (tools: readonly ToolSchema[]) => new InklingParser(tools);

export const inklingToolParser: ToolParserSpec = {
  name: 'inkling',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
