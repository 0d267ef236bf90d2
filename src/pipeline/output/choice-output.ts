/**
 * One choice's visible text → events. Without a plan every delta is content. With a plan,
 * streaming runs the parser chain per delta; non-streaming keeps the text and parses it once at
 * the end (the parsers guarantee both give the same result).
 */
import type { TokenLogprob } from '../../engine/types.js';
import type { EventSink, FinishKind } from '../events.js';
import type { ParsedItem } from '../parsers/types.js';
import type { ChoiceParser, OutputPlan } from './output-plan.js';

export class ChoiceOutput {
  private readonly parser: ChoiceParser | null;
  private buffered = '';
  private calls = 0;

  constructor(
    readonly index: number,
    private readonly plan: OutputPlan | null,
    private readonly stream: boolean,
    private readonly sink: EventSink,
  ) {
    this.parser = plan && (stream || plan.incremental) ? plan.createParser() : null;
  }

  /** A stop string the parser matched itself; the choice then ends with it. */
  get matchedStop(): string | null {
    return this.parser?.matchedStop ?? null;
  }

  /**
   * Handles the next visible text. Returns true when `logprobs` went out with a text event; the
   * caller keeps them for the next event otherwise.
   */
  push(text: string, logprobs: TokenLogprob[] | null): boolean {
    if (this.plan === null) {
      this.sink.push({ kind: 'text', index: this.index, text, logprobs });
      return true;
    }
    if (this.parser === null) {
      this.buffered += text;
      return false;
    }
    return this.emit(this.parser.push(text), logprobs);
  }

  /**
   * End of the choice's text: releases what the parsers held and returns the finish reason to
   * report. A clean stop after tool calls is reported as `tool_calls`; length and aborts win (§11.4).
   */
  finish(reason: FinishKind): FinishKind {
    if (this.parser !== null) this.emit(this.parser.finish(), null);
    else if (this.plan !== null && this.buffered) this.emit(this.plan.parse(this.buffered), null);
    return reason === 'stop' && this.calls > 0 ? 'tool_calls' : reason;
  }

  private emit(items: ParsedItem[], logprobs: TokenLogprob[] | null): boolean {
    let sent = false;
    const index = this.index;
    for (const it of items) {
      switch (it.kind) {
        case 'text':
          if (!it.text) break;
          this.sink.push({ kind: 'text', index, text: it.text, logprobs: sent ? null : logprobs });
          sent = true;
          break;
        case 'reasoning':
          if (it.text) this.sink.push({ kind: 'reasoning', index, text: it.text });
          break;
        case 'tool_start':
          this.calls++;
          this.sink.push({ kind: 'tool_start', index, tool: it.tool, id: this.plan!.toolCallId(it.name, it.tool), name: it.name });
          break;
        case 'tool_args':
          if (it.text) this.sink.push({ kind: 'tool_args', index, tool: it.tool, text: it.text });
          break;
      }
    }
    return sent;
  }
}
