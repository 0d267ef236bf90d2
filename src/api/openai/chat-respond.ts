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

/** The SSE encoder of a streaming chat completion. */
export function chatSse(meta: ChatMeta): SseEncoder {
  // Every chunk shares the envelope; only the choice varies, so build the prefix once.
  const head = `data: {"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"system_fingerprint":"default","choices":[`;
  const open = (i: number) => `${head}{"index":${i},"delta":`;
  const roleSent = new Uint8Array(meta.n);
  const usage = new UsageTally();
  const role = (i: number) => `${open(i)}{"role":"assistant","reasoning_content":null},"logprobs":null,"finish_reason":null}]}\n\n`;
  const delta = (i: number, d: string) => `${open(i)}{"role":"assistant",${d}},"logprobs":null,"finish_reason":null}]}\n\n`;
  return {
    event(ev) {
      if (ev.kind === 'tokens') return '';
      const i = ev.index;
      let out = '';
      if (!roleSent[i]) {
        roleSent[i] = 1;
        out = role(i);
      }
      switch (ev.kind) {
        case 'text': {
          const lp =
            meta.topLogprobs !== null && ev.logprobs
              ? JSON.stringify({ content: chatLogprobs(meta.tokenizer, ev.logprobs, meta.topLogprobs) })
              : 'null';
          return `${out}${open(i)}{"role":"assistant","content":${JSON.stringify(ev.text)},"reasoning_content":null},"logprobs":${lp},"finish_reason":null}]}\n\n`;
        }
        case 'reasoning':
          return out + delta(i, `"reasoning_content":${JSON.stringify(ev.text)}`);
        case 'tool_start': {
          const item = { index: ev.tool, id: ev.id, type: 'function', function: { name: ev.name } };
          return out + delta(i, `"tool_calls":[${JSON.stringify(item)}],"reasoning_content":null`);
        }
        case 'tool_args': {
          const item = { index: ev.tool, function: { arguments: ev.text } };
          return out + delta(i, `"tool_calls":[${JSON.stringify(item)}],"reasoning_content":null`);
        }
        case 'end': {
          usage.add(0, ev.promptTokens, ev.completionTokens, ev.cachedTokens);
          const matched = ev.matchedStop === null ? '' : `,"matched_stop":${JSON.stringify(ev.matchedStop)}`;
          return `${out}${open(i)}{"reasoning_content":null},"logprobs":null,"finish_reason":"${ev.finishReason}"${matched}}]}\n\n`;
        }
      }
    },
    end() {
      const usageChunk = meta.includeUsage ? `${head}],"usage":${JSON.stringify(usage.toJSON(true))}}\n\n` : '';
      return `${usageChunk}${dataFrame('[DONE]')}`;
    },
    error(err) {
      return dataFrame(sseErrorFrame(streamErrorText(err))) + dataFrame('[DONE]');
    },
  };
}
