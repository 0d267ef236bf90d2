/**
 * `cohere`: Cohere Command-R7B / Command-A tool calls, a JSON list in an action block:
 *
 *   <|START_ACTION|>[
 *       {"tool_call_id": "0", "tool_name": "NAME", "parameters": {…}},
 *       …
 *   ]<|END_ACTION|>
 *
 * Sources: the Command-A chat template, which renders past calls exactly so (keys
 * `tool_call_id`, `tool_name`, `parameters`), e.g. the template shipped with
 * CohereLabs/command-a-reasoning-08-2025 (chat_template.jinja) and
 * CohereLabs/c4ai-command-a-03-2025 (tokenizer_config.json, "tool_use"); reference parsers
 * smg-project/smg crates/tool_parser/src/parsers/cohere.rs (a list or a single object; the
 * response markers below are removed from text) and vLLM
 * vllm/tool_parsers/cohere_command_tool_parser.py (delegates to Cohere's `cohere_melody`).
 *
 * Text outside the action block loses the framing markers `<|START_RESPONSE|>`,
 * `<|END_RESPONSE|>`, `<|START_TEXT|>`, `<|END_TEXT|>` (SMG does the same). Reasoning
 * (`<|START_THINKING|>…`) is the `cohere_cmd` reasoning parser's job and is not touched.
 * `tool_call_id` is ignored: ids are assigned by the gateway (request-pipeline §11.5).
 *
 * The calls are streamed (json-calls.ts): `tool_start` once `tool_name` is read, the parameters
 * as they arrive. An action block that is not a call list, or whose first call names an
 * undeclared tool, stays text verbatim, markers included; a later undeclared call stays text as
 * its JSON object. Not covered: the older Command-R/R+ "Action: ```json …```" format, which SMG
 * does not parse either.
 */
import type { ToolParserSpec, ToolSchema } from './types.js';
import { JsonCallRegion, type CallShape } from './json-calls.js';
import { MarkerSet, TokenStreamParser, wholeText } from './token-stream-base.js';

const START_ACTION = '<|START_ACTION|>';
const END_ACTION = '<|END_ACTION|>';
const FRAMING = ['<|START_RESPONSE|>', '<|END_RESPONSE|>', '<|START_TEXT|>', '<|END_TEXT|>'];

const TEXT_MARKERS = new MarkerSet([START_ACTION, ...FRAMING]);
const END_MARKER = new MarkerSet([END_ACTION]);

const SHAPE: CallShape = { nameKey: 'tool_name', argsKeys: ['parameters'], python: false, list: true };

const TEXT = 0;
const ACTION = 1;
/** After the payload ended early: the rest of the block is ignored. */
const SKIP = 2;
/** The block is not calls: shown as text through END_ACTION. */
const PASS = 3;

class CohereParser extends TokenStreamParser {
  private state = TEXT;
  private region: JsonCallRegion | null = null;

  protected step(final: boolean): boolean {
    switch (this.state) {
      case TEXT:
        return this.stepText(final);
      case ACTION:
        return this.stepAction(final);
      default:
        return this.stepToEnd(final, this.state === PASS);
    }
  }

  protected atEnd(): void {
    if (this.region) this.endRegion(false);
  }

  private stepText(final: boolean): boolean {
    const buf = this.buf;
    const hit = TEXT_MARKERS.find(buf);
    if (hit) {
      this.text(buf.slice(0, hit[0]));
      this.consume(hit[0] + hit[1].length);
      if (hit[1] === START_ACTION) {
        this.region = new JsonCallRegion(SHAPE, this.declared, this.emitter);
        this.state = ACTION;
      }
      return true;
    }
    const keep = final ? 0 : TEXT_MARKERS.held(buf);
    this.text(buf.slice(0, buf.length - keep));
    this.consume(buf.length - keep);
    return false;
  }

  private stepAction(final: boolean): boolean {
    const buf = this.buf;
    const hit = END_MARKER.find(buf);
    const end = hit ? hit[0] : buf.length - (final ? 0 : END_MARKER.held(buf));
    const region = this.region!;
    const used = region.write(buf.slice(0, end));
    this.consume(used);
    if (region.abandoned) return this.abandon();
    if (region.finished) {
      this.region = null;
      this.state = SKIP;
      return true;
    }
    if (!hit) return false;
    this.consume(END_ACTION.length);
    return this.endRegion(true);
  }

  private stepToEnd(final: boolean, asText: boolean): boolean {
    const buf = this.buf;
    const hit = END_MARKER.find(buf);
    const end = hit ? hit[0] + END_ACTION.length : buf.length - (final ? 0 : END_MARKER.held(buf));
    if (asText) this.text(buf.slice(0, end));
    this.consume(end);
    if (!hit) return false;
    this.state = TEXT;
    return true;
  }

  /** The block ended: at END_ACTION (already consumed) or at the end of the stream. */
  private endRegion(atMarker: boolean): boolean {
    const region = this.region!;
    region.end();
    this.region = null;
    this.state = TEXT;
    // Nothing in it was a call: the whole block, markers included, stays text.
    if (region.abandoned) this.text(START_ACTION + region.rawText + (atMarker ? END_ACTION : ''));
    return true;
  }

  private abandon(): boolean {
    this.text(START_ACTION + this.region!.rawText);
    this.region = null;
    this.state = PASS;
    return true;
  }
}

const create = (tools: readonly ToolSchema[]) => new CohereParser(tools);

export const cohereToolParser: ToolParserSpec = {
  name: 'cohere',
  create,
  parse: (text, tools) => wholeText(() => create(tools), text),
};
