/**
 * Inkling reasoning parser: TML typed content blocks.
 *
 * Source: SMG crates/reasoning_parser/src/parsers/inkling.rs (@ f8daa88; its control-token list is
 * "kept in sync with the Inkling TMLv0 tokenizer control tokens"). An Inkling reply is a sequence
 * of typed blocks after the `<|message_model|>` generation prompt, e.g.
 *
 *   <|content_thinking|>check sources<|end_message|>
 *   <|message_model|><|content_text|>Here is the answer.<|end_message|>
 *   <|message_model|>search<|content_invoke_tool_json|>{"name":"search","args":{…}}<|end_message|>
 *   <|content_model_end_sampling|>
 *
 * There is no start/end pair: a thinking block runs until the next control token. The tokens are
 * special, so the decode must keep them (needsSpecialTokens, §7.3).
 *
 * Routing (as SMG): thinking blocks → reasoning; text blocks and text outside any block →
 * content; control tokens are removed, except that a JSON tool block is passed on verbatim
 * (`<|content_invoke_tool_json|>` … end token) for the inkling tool parser; a text-mode tool block
 * (`<|content_invoke_tool_text|>`) is suppressed whole, since it cannot be shown as an OpenAI call
 * and must not read as answer text. Text between `<|message_model|>` and the block's content-type
 * token is the block's author/tool name: protocol metadata, not content.
 *
 * Deviations from SMG:
 * 1. Header text is dropped only once a content-type token confirms it was a header. If the
 *    header is instead ended by another control token, or by the end of the stream, its text is
 *    released as content rather than lost (SMG drops it). Until then it is held; past
 *    PARSER_BUFFER_LIMIT the parser stops separating and passes everything through as content.
 * 2. A partial control token at end of stream is flushed into the current block (as SMG's
 *    non-stream path does; its stream path has no end-of-stream hook).
 * `startInReasoning` opens a thinking block; `startMarkerConsumed` has no meaning here.
 */
import { PARSER_BUFFER_LIMIT, type ParsedItem, type StreamingParser } from '../../types.js';
import type { ReasoningOptions, ReasoningParserSpec } from '../types.js';
import { emit, MarkerSet, MarkerStreamParser, parseWhole } from '../marker-stream.js';

const MESSAGE_MODEL = '<|message_model|>';
const CONTENT_TEXT = '<|content_text|>';
const CONTENT_THINKING = '<|content_thinking|>';
const CONTENT_INVOKE_TOOL_JSON = '<|content_invoke_tool_json|>';
const CONTENT_INVOKE_TOOL_TEXT = '<|content_invoke_tool_text|>';
const CONTENT_MODEL_END_SAMPLING = '<|content_model_end_sampling|>';
const END_MESSAGE = '<|end_message|>';

const CONTROL_TOKENS = [
  '<|endoftext|>',
  '<|message_user|>',
  MESSAGE_MODEL,
  '<|message_system|>',
  '<|message_tool|>',
  CONTENT_TEXT,
  '<|content_image|>',
  CONTENT_MODEL_END_SAMPLING,
  CONTENT_THINKING,
  '<|content_audio_input|>',
  '<|content_tool_error|>',
  '<|content_xml|>',
  CONTENT_INVOKE_TOOL_JSON,
  CONTENT_INVOKE_TOOL_TEXT,
  END_MESSAGE,
  '<|audio_end|>',
];

const CONTROLS = new MarkerSet(CONTROL_TOKENS);
const NOTHING = new MarkerSet([]);

function isEnd(token: string): boolean {
  return token === END_MESSAGE || token === CONTENT_MODEL_END_SAMPLING;
}

/** A token that gives a block its content type, so whatever preceded it was the block header. */
function isContentType(token: string): boolean {
  return token.startsWith('<|content_') && token !== CONTENT_MODEL_END_SAMPLING;
}

const OUTSIDE = 0;
const HEADER = 1;
const THINKING = 2;
const TEXT = 3;
const TOOL = 4;
const UNSUPPORTED_TOOL = 5;
type Block = typeof OUTSIDE | typeof HEADER | typeof THINKING | typeof TEXT | typeof TOOL | typeof UNSUPPORTED_TOOL;

class InklingParser extends MarkerStreamParser {
  private block: Block;
  /** Text after `<|message_model|>` not yet known to be a header. */
  private header = '';
  /** Set once held header text would pass the buffer limit: no more separation. */
  private passthrough = false;

  constructor(opts: ReasoningOptions) {
    super(CONTROLS, null);
    this.block = opts.startInReasoning ? THINKING : OUTSIDE;
  }

  protected onText(text: string, out: ParsedItem[]): void {
    if (this.passthrough) return emit(out, 'text', text);
    switch (this.block) {
      case THINKING:
        return emit(out, 'reasoning', text);
      case HEADER:
        if (this.header.length + text.length > PARSER_BUFFER_LIMIT) {
          emit(out, 'text', this.header + text);
          this.header = '';
          this.passthrough = true;
          this.watched = NOTHING;
        } else {
          this.header += text;
        }
        return;
      case UNSUPPORTED_TOOL:
        return;
      default:
        return emit(out, 'text', text);
    }
  }

  protected onMarker(token: string, out: ParsedItem[]): void {
    // The limit can trip inside a scan whose next marker is already found: it is text now.
    if (this.passthrough) return emit(out, 'text', token);
    if (this.block === HEADER) {
      if (!isContentType(token)) emit(out, 'text', this.header);
      this.header = '';
      this.block = OUTSIDE;
    }
    if (token === MESSAGE_MODEL) {
      this.block = HEADER;
    } else if (token === CONTENT_INVOKE_TOOL_JSON) {
      this.block = TOOL;
      emit(out, 'text', token);
    } else if (token === CONTENT_INVOKE_TOOL_TEXT) {
      this.block = UNSUPPORTED_TOOL;
    } else if (this.block === TOOL) {
      emit(out, 'text', token);
      if (isEnd(token)) this.block = OUTSIDE;
    } else if (this.block === UNSUPPORTED_TOOL) {
      if (isEnd(token)) this.block = OUTSIDE;
    } else if (token === CONTENT_THINKING) {
      this.block = THINKING;
    } else if (token === CONTENT_TEXT) {
      this.block = TEXT;
    } else if (isEnd(token)) {
      this.block = OUTSIDE;
    }
  }

  override finish(): ParsedItem[] {
    const out = super.finish();
    if (this.header.length > 0) emit(out, 'text', this.header);
    this.header = '';
    return out;
  }
}

function create(opts: ReasoningOptions): StreamingParser {
  return new InklingParser(opts);
}

export const inkling: ReasoningParserSpec = {
  name: 'inkling',
  startsInReasoning: false,
  needsSpecialTokens: true,
  create,
  parse: (text, opts) => parseWhole(create(opts), text),
};
