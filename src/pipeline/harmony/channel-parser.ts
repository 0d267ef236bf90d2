/**
 * Parses gpt-oss output (decoded with special tokens visible) into the gateway's parser items
 * (`ParsedItem`, src/pipeline/parsers/types.ts). The output continues the prompt's trailing
 * `<|start|>assistant`, so the first header has no `<|start|>assistant` (it usually starts with
 * `<|channel|>`); later messages start with `<|start|>` (format guide "Chat conversation format").
 * `<|end|>` ends a message; `<|return|>` and `<|call|>` end one too and then generation, but the
 * engine stops on them, so they may be missing. `<|endoftext|>` is treated like `<|end|>`.
 *
 * What each message becomes (header rules in `header.ts`):
 * - recipient `functions.NAME` on any channel → a call: `tool_start`, then the content as
 *   `tool_args` (see `call-args.ts`). SMG and vLLM trust the recipient before the channel
 *   (smg harmony/parser.rs `parse_messages`; vLLM openai_tool_parser.py).
 * - recipient `python…`, `browser…`, `container…` (built-in tools, part of the chain of thought)
 *   → `reasoning` (SMG parse_messages).
 * - channel `analysis` → `reasoning`; `final` → `text`; `commentary` without a recipient (a
 *   preamble meant for the user, format guide "Preambles") → `text` (vLLM parse_chat_output; SMG
 *   files it under reasoning); no or an unknown channel → `text` (SMG).
 * - Two messages that land in the same field are joined with "\n" (vLLM parse_chat_output).
 *
 * Nothing the model wrote is dropped (only the structural tokens): a header the rules cannot read
 * (leftover words, a non-assistant author, a message without `<|message|>`, a header longer than
 * HEADER_LIMIT) or a call to a function outside `toolNames` is passed through verbatim as `text`,
 * header included; so is stray text between messages. One exception: output that ends inside the
 * header of a message (after `<|start|>`, or after a `<|channel|>` marker) is a message the engine
 * cut off before any content, and it is dropped.
 *
 * Tool names: SMG and vLLM turn any `functions.NAME` into a call. Pass `toolNames`
 * (`callableToolNames(tools)`) to accept only declared tools, as the gateway's other tool parsers
 * do (request-pipeline §11.3); without it every name is accepted.
 *
 * Stop strings (`finalStops`): only `final`-channel text goes through the filter, one message at a
 * time (what it holds at a message's end is released); after a match everything else is ignored
 * and `stopMatched` is set, so the caller can end the generation.
 *
 * Split invariance: every decision is made on complete markers or at `finish()`, never on where a
 * delta ends, so folding the items of any split gives `parseHarmony`'s result.
 */
import { findFirst, heldSuffixLength } from '../parsers/markers.js';
import type { ParsedItem, StreamingParser } from '../parsers/types.js';
import { CallArgumentsStream } from './call-args.js';
import { type HarmonyHeader, parseHarmonyHeader } from './header.js';
import { type HarmonyStopFilter, isStopStringTarget } from './stops.js';
import { CALL, CHANNEL, END, END_OF_TEXT, MESSAGE, RETURN, START } from './tokens.js';
import type { HarmonyFunctionTool } from './types.js';

/** Longest header accepted; real ones are under 150 characters (a 64-character function name). */
export const HEADER_LIMIT = 512;

const HEADER_MARKERS = [MESSAGE, START, END, RETURN, CALL, END_OF_TEXT];
const CONTENT_END = [END, RETURN, CALL, END_OF_TEXT];
const BETWEEN_MARKERS = [START, END, RETURN, CALL, END_OF_TEXT];
const BUILTIN_RECIPIENT = /^(?:python|browser|container)/;

export interface HarmonyParserOptions {
  /** Function names a call may use; null/absent accepts any `functions.NAME` (SMG, vLLM). */
  toolNames?: Iterable<string> | null;
  /** Runs final-channel text through user stop strings (`stops.ts`). */
  finalStops?: HarmonyStopFilter | null;
}

/** Names of the declared function tools, for `HarmonyParserOptions.toolNames`. */
export function callableToolNames(tools: readonly HarmonyFunctionTool[] | null | undefined): string[] {
  return (tools ?? []).filter((t) => t.type === undefined || t.type === 'function').map((t) => t.function.name);
}

interface Segment {
  kind: 'text' | 'reasoning' | 'call';
  /** Has this segment emitted text yet (decides the "\n" joiner)? */
  emitted: boolean;
  stopTarget: boolean;
  tool: number;
  args: CallArgumentsStream | null;
}

type State = 'header' | 'content' | 'between';

export class HarmonyChannelParser implements StreamingParser {
  private readonly toolNames: ReadonlySet<string> | null;
  private readonly finalStops: HarmonyStopFilter | null;
  private buf = '';
  private state: State = 'header';
  /** The prompt opened the first message as the assistant's; later headers name their role. */
  private headerRole: string | null = 'assistant';
  private headerAfterStart = false;
  private seg: Segment | null = null;
  private textSeen = false;
  private reasoningSeen = false;
  private tools = 0;
  private stopped = false;

  constructor(opts: HarmonyParserOptions = {}) {
    this.toolNames = opts.toolNames ? new Set(opts.toolNames) : null;
    this.finalStops = opts.finalStops ?? null;
  }

  /** A user stop string matched in final text: the caller should end generation. */
  get stopMatched(): boolean {
    return this.stopped;
  }

  push(delta: string): ParsedItem[] {
    const out: ParsedItem[] = [];
    if (this.stopped) return out;
    this.buf += delta;
    while (!this.stopped && this.step(out));
    return out;
  }

  finish(): ParsedItem[] {
    const out: ParsedItem[] = [];
    if (this.stopped) return out;
    const rest = this.buf;
    this.buf = '';
    if (this.state === 'header') {
      const cutOff = this.headerAfterStart || rest.includes(CHANNEL);
      if (rest !== '' && !cutOff) this.verbatim(rest, out);
    } else {
      if (this.state === 'content') this.emit(rest, out);
      else this.stray(rest, out);
      if (!this.stopped) this.close(out);
    }
    return out;
  }

  /** Handles what the buffer allows; returns whether to look again. */
  private step(out: ParsedItem[]): boolean {
    const buf = this.buf;
    if (this.state === 'header') {
      const hit = findFirst(buf, HEADER_MARKERS);
      const start = this.headerAfterStart ? START : '';
      if (hit !== null && hit[0] <= HEADER_LIMIT) {
        const [at, marker] = hit;
        const header = buf.slice(0, at);
        this.buf = buf.slice(at + marker.length);
        if (marker === MESSAGE) {
          this.openMessage(parseHarmonyHeader(header, this.headerRole), start + header + MESSAGE, out);
          this.state = 'content';
        } else {
          this.verbatim(start + header, out);
          this.state = marker === START ? 'header' : 'between';
          this.headerRole = null;
          this.headerAfterStart = marker === START;
        }
        return true;
      }
      // Comparing where a marker could still begin (not the buffer's length) keeps this decision
      // the same whether the text came in one piece or many.
      if (hit !== null || buf.length - heldSuffixLength(buf, HEADER_MARKERS) > HEADER_LIMIT) {
        this.open('text', false, out);
        this.emit(start, out);
        this.state = 'content';
        return true;
      }
      return false;
    }
    if (this.state === 'content') {
      const hit = findFirst(buf, CONTENT_END);
      if (hit !== null) {
        const [at, marker] = hit;
        this.buf = buf.slice(at + marker.length);
        this.emit(buf.slice(0, at), out);
        if (this.stopped) return false;
        this.close(out);
        this.state = 'between';
        return true;
      }
      const keep = buf.length - heldSuffixLength(buf, CONTENT_END);
      this.buf = buf.slice(keep);
      this.emit(buf.slice(0, keep), out);
      return false;
    }
    const hit = findFirst(buf, BETWEEN_MARKERS);
    if (hit !== null) {
      const [at, marker] = hit;
      this.buf = buf.slice(at + marker.length);
      this.stray(buf.slice(0, at), out);
      if (marker === START) {
        this.close(out);
        this.state = 'header';
        this.headerRole = null;
        this.headerAfterStart = true;
      }
      return true;
    }
    const keep = buf.length - heldSuffixLength(buf, BETWEEN_MARKERS);
    this.buf = buf.slice(keep);
    this.stray(buf.slice(0, keep), out);
    return false;
  }

  /** Starts the segment a parsed header calls for, or a verbatim text segment. */
  private openMessage(header: HarmonyHeader | null, raw: string, out: ParsedItem[]): void {
    if (header !== null && header.role === 'assistant') {
      const recipient = header.recipient;
      if (recipient?.startsWith('functions.')) {
        const name = recipient.slice('functions.'.length);
        if (name !== '' && (this.toolNames === null || this.toolNames.has(name))) {
          this.open('call', false, out);
          out.push({ kind: 'tool_start', tool: (this.seg as Segment).tool, name });
          return;
        }
      } else if (recipient !== undefined && BUILTIN_RECIPIENT.test(recipient)) {
        this.open('reasoning', false, out);
        return;
      } else {
        this.open(header.channel === 'analysis' ? 'reasoning' : 'text', isStopStringTarget(header), out);
        return;
      }
    }
    this.open('text', false, out);
    this.emit(raw, out);
  }

  private open(kind: Segment['kind'], stopTarget: boolean, out: ParsedItem[]): void {
    this.close(out);
    const call = kind === 'call';
    this.seg = { kind, emitted: false, stopTarget: stopTarget && this.finalStops !== null, tool: call ? this.tools++ : -1, args: call ? new CallArgumentsStream() : null };
  }

  private close(out: ParsedItem[]): void {
    const seg = this.seg;
    if (seg === null) return;
    if (seg.args !== null) {
      const rest = seg.args.finish();
      if (rest !== '') out.push({ kind: 'tool_args', tool: seg.tool, text: rest });
    } else if (seg.stopTarget) {
      // Stop strings are matched within one message; what the filter still holds is plain text.
      this.write(seg, (this.finalStops as HarmonyStopFilter).flush(), out);
    }
    this.seg = null;
  }

  /** Content of the current segment. */
  private emit(text: string, out: ParsedItem[]): void {
    const seg = this.seg;
    if (text === '' || seg === null) return;
    if (seg.args !== null) {
      const diff = seg.args.push(text);
      if (diff !== '') out.push({ kind: 'tool_args', tool: seg.tool, text: diff });
      return;
    }
    if (seg.stopTarget) {
      const r = (this.finalStops as HarmonyStopFilter).push(text);
      this.write(seg, r.text, out);
      if (r.stopped) {
        this.stopped = true;
        this.buf = '';
        this.seg = null;
      }
      return;
    }
    this.write(seg, text, out);
  }

  private write(seg: Segment, text: string, out: ParsedItem[]): void {
    if (text === '') return;
    const kind = seg.kind === 'reasoning' ? 'reasoning' : 'text';
    if (!seg.emitted) {
      seg.emitted = true;
      const seen = kind === 'text' ? this.textSeen : this.reasoningSeen;
      if (seen) text = `\n${text}`;
      if (kind === 'text') this.textSeen = true;
      else this.reasoningSeen = true;
    }
    const last = out[out.length - 1];
    if (last !== undefined && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  }

  /** A header that cannot be read, emitted as one text segment of its own. */
  private verbatim(text: string, out: ParsedItem[]): void {
    if (text === '') return;
    this.open('text', false, out);
    this.emit(text, out);
    this.close(out);
  }

  /** Text between messages: one text segment until the next `<|start|>`. */
  private stray(text: string, out: ParsedItem[]): void {
    if (text === '') return;
    if (this.seg === null) this.open('text', false, out);
    this.emit(text, out);
  }
}

/** Non-streaming parse: the same items a single-delta stream gives, so folds agree by construction. */
export function parseHarmony(text: string, opts: HarmonyParserOptions = {}): ParsedItem[] {
  const parser = new HarmonyChannelParser(opts);
  return [...parser.push(text), ...parser.finish()];
}
