/**
 * Kimi K3 reasoning parser: the `think` channel of K3's XTML output format.
 *
 * Sources: SMG crates/reasoning_parser/src/parsers/kimi_k3.rs (@ f8daa88, "Ported from the Kimi-K3
 * reference reasoning parser") and vLLM vllm/reasoning/kimi_k3_reasoning_parser.py. K3 frames
 * channels with the special tokens `<|open|>`, `<|close|>` and `<|sep|>`:
 *
 *   <|open|>think<|sep|> …reasoning… <|close|>think<|sep|>
 *   <|open|>response<|sep|> …answer… <|close|>response<|sep|>
 *   <|open|>tools<|sep|> …calls… <|close|>tools<|sep|>      (left verbatim for the tool parser)
 *   <|close|>message<|sep|>                                 (end of the assistant message)
 *
 * In thinking mode the generation prompt already ends with `<|open|>think<|sep|>`, so the output
 * usually begins inside the channel (the template's switch arms the parser, §4.4). The markers are
 * special tokens, so the decode must keep them (needsSpecialTokens, §7.3).
 *
 * Behaviour:
 * - Before reasoning: content. The first think-open marker opens reasoning; `response` / `message`
 *   wrapper markers are removed; a stray think-close (the prompt opened the channel but the parser
 *   was not armed) is removed and ends any chance of a later think channel.
 * - In reasoning: reasoning until the first of think-close, `response` open, `tools` open, or a
 *   `response` / `message` close (the model answered inside the pre-filled channel). The tools
 *   opener stays in the text, the others are removed. A think-open the model repeats is dropped.
 * - After reasoning: content with the four `response` / `message` wrapper markers removed
 *   wherever they appear; the tools channel and anything else pass through verbatim.
 *
 * Deviations from SMG, so that streamed and non-streamed output agree for every split:
 * 1. A `response`/`message` close while in a pre-filled channel ends reasoning but does not move
 *    the reasoning already seen into the content. SMG's non-stream path moves it (all answer, no
 *    reasoning); its stream path cannot, and emits that text in both fields.
 * 2. SMG's non-stream path, when not armed, treats text before a think-close as reasoning and
 *    drops text before a think-open; here both are content (a stream cannot take them back).
 * 3. Markers are matched exactly. SMG/vLLM also accept whitespace inside them
 *    (`<|open|> think <|sep|>`) against `spaces_between_special_tokens`, which this gateway's
 *    decoder never applies (§7.2).
 * 4. All wrapper markers are removed wherever they occur (SMG removes only the first
 *    `response` open in the stream path).
 * 5. A partial marker held at end of stream is flushed as text (SMG drops it).
 */
import type { ParsedItem, StreamingParser } from '../../types.js';
import type { ReasoningOptions, ReasoningParserSpec } from '../types.js';
import { emit, MarkerSet, MarkerStreamParser, parseWhole } from '../marker-stream.js';

const THINK_OPEN = '<|open|>think<|sep|>';
const THINK_CLOSE = '<|close|>think<|sep|>';
const RESPONSE_OPEN = '<|open|>response<|sep|>';
const RESPONSE_CLOSE = '<|close|>response<|sep|>';
const MESSAGE_OPEN = '<|open|>message<|sep|>';
const MESSAGE_CLOSE = '<|close|>message<|sep|>';
const TOOLS_OPEN = '<|open|>tools<|sep|>';

const WRAPPERS = [RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_OPEN, MESSAGE_CLOSE];
/** What ends the think channel (the message opener is not one: it comes before the channel). */
const REASONING_ENDS = [THINK_CLOSE, RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_CLOSE, TOOLS_OPEN];

const SETS = {
  beforeOpen: new MarkerSet([THINK_OPEN, THINK_CLOSE, ...WRAPPERS]),
  before: new MarkerSet([THINK_CLOSE, ...WRAPPERS]),
  reasoningOpen: new MarkerSet([THINK_OPEN, ...REASONING_ENDS]),
  reasoning: new MarkerSet(REASONING_ENDS),
  after: new MarkerSet(WRAPPERS),
};

const BEFORE = 0;
const REASONING = 1;
const AFTER = 2;
type Phase = typeof BEFORE | typeof REASONING | typeof AFTER;

class KimiK3Parser extends MarkerStreamParser {
  private phase: Phase;
  private startOpen: boolean;

  constructor(opts: ReasoningOptions) {
    super(SETS.after, opts.startMarkerConsumed ? THINK_OPEN : null);
    this.phase = opts.startInReasoning ? REASONING : BEFORE;
    this.startOpen = !opts.startMarkerConsumed;
    this.rewatch();
  }

  private rewatch(): void {
    if (this.phase === BEFORE) this.watched = this.startOpen ? SETS.beforeOpen : SETS.before;
    else if (this.phase === REASONING) this.watched = this.startOpen ? SETS.reasoningOpen : SETS.reasoning;
    else this.watched = SETS.after;
  }

  protected onText(text: string, out: ParsedItem[]): void {
    emit(out, this.phase === REASONING ? 'reasoning' : 'text', text);
  }

  protected onMarker(marker: string, out: ParsedItem[]): void {
    if (marker === THINK_OPEN) {
      this.startOpen = false;
      if (this.phase === BEFORE) this.phase = REASONING;
    } else if (this.phase === REASONING) {
      this.phase = AFTER;
      if (marker === TOOLS_OPEN) emit(out, 'text', marker);
    } else if (marker === THINK_CLOSE) {
      this.phase = AFTER;
    }
    // Wrapper markers outside reasoning are dropped.
    this.rewatch();
  }
}

function create(opts: ReasoningOptions): StreamingParser {
  return new KimiK3Parser(opts);
}

export const kimiK3: ReasoningParserSpec = {
  name: 'kimi_k3',
  startsInReasoning: false,
  needsSpecialTokens: true,
  create,
  parse: (text, opts) => parseWhole(create(opts), text),
};
