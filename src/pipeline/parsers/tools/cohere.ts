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
 * The calls are streamed (json-list.ts, framed; json-call.ts): `tool_start` once `tool_name` is
 * read, the parameters as they arrive (settled members: a repeated key keeps its first value). An action block that is not a call list, or whose first call names an
 * undeclared tool, stays text verbatim, markers included; a later undeclared call stays text as
 * its JSON object. Not covered: the older Command-R/R+ "Action: ```json …```" format, which SMG
 * does not parse either.
 */
import { type CallShape, MODEL_SYNTAX } from './json-call.js';
import { JsonListParser } from './json-list.js';
import { Next as NextEnum, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const Next = NextEnum;

const START_ACTION = '<|START_ACTION|>';
const END_ACTION = '<|END_ACTION|>';
const FRAMING = ['<|START_RESPONSE|>', '<|END_RESPONSE|>', '<|START_TEXT|>', '<|END_TEXT|>'];

const TEXT_MARKERS = [START_ACTION, ...FRAMING];
const END_MARKERS = [END_ACTION];

const SHAPE: CallShape = { nameKey: 'tool_name', argKeys: ['parameters'], objectArgs: true, syntax: MODEL_SYNTAX };

const TEXT = 0;
const ACTION = 1;
/** After the payload ended: the rest of the block is ignored. */
const SKIP = 2;
/** The block is not calls: shown as text through END_ACTION. */
const PASS = 3;

class CohereParser extends JsonListParser {
  protected readonly startChars = '<';
  protected override shape = SHAPE;
  protected override framed = true;
  private state = TEXT;
  private readonly textSet = this.markerSet(TEXT_MARKERS);
  private readonly endSet = this.markerSet(END_MARKERS);

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
      case TEXT: {
        const marker = this.scanText(this.textSet);
        if (marker === null) return false;
        if (marker === START_ACTION) {
          this.setCand(this.pos);
          this.pos += marker.length;
          this.startPayload(true);
          this.state = ACTION;
        } else this.consumeTo(this.pos + marker.length);
        return true;
      }
      case ACTION: {
        this.boundBy(this.endSet);
        const next = this.stepList();
        this.unbound();
        if (next === Next.Wait) return false;
        // Released (not calls, the marker included): the whole block stays text.
        this.state = next === Next.Text ? PASS : SKIP;
        return true;
      }
      case SKIP: {
        const at = this.upTo(this.endSet);
        const marker = this.hit;
        this.consumeTo(at + marker.length);
        if (marker === '') return false;
        this.state = TEXT;
        return true;
      }
      default: {
        const marker = this.scanText(this.endSet);
        if (marker === null) return false;
        this.out.text(marker);
        this.consumeTo(this.pos + marker.length);
        this.state = TEXT;
        return true;
      }
    }
  }
}

export const cohereToolParser = toolParserSpec('cohere', (tools: readonly ToolSchema[]) => new CohereParser(tools));
