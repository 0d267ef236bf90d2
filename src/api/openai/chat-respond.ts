/**
 * Chat completion responses (request-pipeline §12.1/§12.2): one JSON object, or SSE chunks with a
 * role chunk first per choice, reasoning / content / tool-call chunks, one finish chunk per
 * choice, an optional usage chunk, then `[DONE]`.
 */
import type { Collected } from '../../pipeline/collect.js';
import type { Decoder } from '../../pipeline/detokenizer.js';
import { streamErrorText } from '../../pipeline/errors.js';
import type { GenEvent } from '../../pipeline/events.js';
import { UsageTally } from '../../pipeline/usage.js';
import type { FrameBytes } from '../frame-bytes.js';
import { type SseEncoder, dataFrame } from '../sse.js';
import { sseErrorFrame } from './errors.js';
import { chatLogprobs } from './logprobs-format.js';

export interface ChatMeta {
  id: string;
  created: number;
  model: string;
  n: number;
  tokenizer: Decoder;
  /** Logprob candidates to show per token, or null when logprobs were not requested. */
  topLogprobs: number | null;
  includeUsage: boolean;
}

export function chatJson({ choices: acc, usage }: Collected, meta: ChatMeta): Record<string, unknown> {
  const choices = acc.map((c, index) => {
    const message: Record<string, unknown> = { role: 'assistant' };
    // Whitespace-only content is no content (§11.4); the key stays, null, as OpenAI and vLLM send
    // it for a message of tool calls only (SMG leaves it out, which clients reading
    // `message.content` as a required field trip over).
    message.content = c.text.trim().length > 0 ? c.text : null;
    if (c.toolCalls.length > 0) {
      message.tool_calls = c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }));
    }
    message.reasoning_content = c.reasoning.length > 0 ? c.reasoning : null;
    const choice: Record<string, unknown> = { index, message };
    if (meta.topLogprobs !== null) {
      choice.logprobs = { content: chatLogprobs(meta.tokenizer, c.logprobs, meta.topLogprobs) };
    }
    // A choice cut short by a client disconnect never reaches here; an unfinished one is an abort.
    choice.finish_reason = c.finish ?? 'abort';
    if (c.matched !== null) choice.matched_stop = c.matched;
    return choice;
  });
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices,
    usage: usage.toJSON(true),
    system_fingerprint: 'default',
  };
}

/** What follows a content delta's text, and a reasoning delta's (no logprobs, not finishing). */
const CONTENT_TAIL = Buffer.from(',"reasoning_content":null},"logprobs":null,"finish_reason":null}]}\n\n');
const REASONING_TAIL = Buffer.from('},"logprobs":null,"finish_reason":null}]}\n\n');

/** The SSE encoder of a streaming chat completion. */
export function chatSse(meta: ChatMeta): SseEncoder {
  return new ChatSse(meta);
}

/**
 * A class rather than an object of closures: one is made per streamed request, and under tsx
 * (esbuild keepNames) each closure made at run time also carries its own `name` property.
 */
class ChatSse implements SseEncoder {
  /** Every chunk shares the envelope; only the choice varies, so the prefix is built once. */
  private readonly head: string;
  private readonly roleSent: Uint8Array;
  private readonly usage = new UsageTally();
  /** Per choice, the bytes before a content delta's text and before a reasoning delta's (made on first use). */
  private readonly contentHead: (Buffer | undefined)[] = [];
  private readonly reasoningHead: (Buffer | undefined)[] = [];
  /** meta.topLogprobs, read per token: held here, one object less to reach (issue 30). */
  private readonly topLogprobs: number | null;

  constructor(private readonly meta: ChatMeta) {
    this.topLogprobs = meta.topLogprobs;
    this.head = `data: {"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"system_fingerprint":"default","choices":[`;
    this.roleSent = new Uint8Array(meta.n);
  }

  private open(i: number): string {
    return `${this.head}{"index":${i},"delta":`;
  }

  private role(i: number): string {
    return `${this.open(i)}{"role":"assistant","reasoning_content":null},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  private delta(i: number, d: string): string {
    return `${this.open(i)}{"role":"assistant",${d}},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  /**
   * A content or reasoning delta after the role chunk, without logprobs: the frame event() makes,
   * written as its fixed bytes around the text (the frames of nearly every token).
   */
  eventInto(ev: GenEvent, out: FrameBytes): boolean {
    if (ev.kind === 'text') {
      const i = ev.index;
      if (!this.roleSent[i] || (this.topLogprobs !== null && ev.logprobs)) return false;
      const head = this.contentHead[i] ?? (this.contentHead[i] = Buffer.from(`${this.open(i)}{"role":"assistant","content":`));
      out.appendAround(head, ev.text, CONTENT_TAIL);
      return true;
    }
    if (ev.kind === 'reasoning') {
      const i = ev.index;
      if (!this.roleSent[i]) return false;
      const head = this.reasoningHead[i] ?? (this.reasoningHead[i] = Buffer.from(`${this.open(i)}{"role":"assistant","reasoning_content":`));
      out.appendAround(head, ev.text, REASONING_TAIL);
      return true;
    }
    return false;
  }

  event(ev: GenEvent): string {
    if (ev.kind === 'tokens') return '';
    const i = ev.index;
    const meta = this.meta;
    let out = '';
    if (!this.roleSent[i]) {
      this.roleSent[i] = 1;
      out = this.role(i);
    }
    switch (ev.kind) {
      case 'text': {
        const lp =
          meta.topLogprobs !== null && ev.logprobs
            ? JSON.stringify({ content: chatLogprobs(meta.tokenizer, ev.logprobs, meta.topLogprobs) })
            : 'null';
        return `${out}${this.open(i)}{"role":"assistant","content":${JSON.stringify(ev.text)},"reasoning_content":null},"logprobs":${lp},"finish_reason":null}]}\n\n`;
      }
      case 'reasoning':
        return out + this.delta(i, `"reasoning_content":${JSON.stringify(ev.text)}`);
      case 'tool_start': {
        const item = { index: ev.tool, id: ev.id, type: 'function', function: { name: ev.name } };
        return out + this.delta(i, `"tool_calls":[${JSON.stringify(item)}],"reasoning_content":null`);
      }
      case 'tool_args': {
        const item = { index: ev.tool, function: { arguments: ev.text } };
        return out + this.delta(i, `"tool_calls":[${JSON.stringify(item)}],"reasoning_content":null`);
      }
      case 'end': {
        this.usage.add(0, ev.promptTokens, ev.completionTokens, ev.cachedTokens);
        const matched = ev.matchedStop === null ? '' : `,"matched_stop":${JSON.stringify(ev.matchedStop)}`;
        return `${out}${this.open(i)}{"reasoning_content":null},"logprobs":null,"finish_reason":"${ev.finishReason}"${matched}}]}\n\n`;
      }
    }
  }

  end(): string {
    const usageChunk = this.meta.includeUsage ? `${this.head}],"usage":${JSON.stringify(this.usage.toJSON(true))}}\n\n` : '';
    return `${usageChunk}${dataFrame('[DONE]')}`;
  }

  error(err: unknown): string {
    return dataFrame(sseErrorFrame(streamErrorText(err))) + dataFrame('[DONE]');
  }
}
