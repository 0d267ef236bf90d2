/**
 * Responses answers: one `response` object, or the streamed event sequence (OpenAI's Responses
 * streaming events, each `event: <type>` + `data: <json>` with a growing `sequence_number`):
 * response.created → response.in_progress → per output item output_item.added → (content_part.added
 * → output_text.delta… / reasoning_text.delta… → .done → content_part.done | function_call_arguments
 * .delta… → .done) → output_item.done → response.completed (response.incomplete when the token
 * limit cut it off). A failure after the stream started is
 * an `error` event followed by response.failed.
 */
import type { Collected } from '../../pipeline/collect.js';
import { streamErrorText } from '../../pipeline/errors.js';
import type { FinishKind, GenEvent } from '../../pipeline/events.js';
import type { SseEncoder } from '../sse.js';
import {
  type ResponseMeta,
  finishedMessageStatus,
  functionCallItem,
  functionCallItemId,
  messageItem,
  messageItemId,
  outputItems,
  outputTextPart,
  reasoningItem,
  reasoningItemId,
  responseObject,
  summaryPart,
  responseStatus,
  usageOf,
} from './response-object.js';

export function responseJson({ choices, usage }: Collected, meta: ResponseMeta): Record<string, unknown> {
  const c = choices[0];
  const u = usage.toJSON(true) as { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  return responseObject(
    meta,
    responseStatus(c.finish),
    outputItems(meta, c),
    usageOf(meta, u.prompt_tokens, u.completion_tokens, u.prompt_tokens_details?.cached_tokens ?? 0, c.reasoning),
  );
}

type OpenItem =
  | { kind: 'reasoning'; index: number; text: string }
  | { kind: 'message'; index: number; text: string }
  | { kind: 'call'; index: number; callId: string; name: string; args: string };

export function responseSse(meta: ResponseMeta): SseEncoder {
  let seq = 0;
  let started = false;
  const items: Record<string, unknown>[] = [];
  let open: OpenItem | null = null;
  /** Whitespace seen before any message text: a message item opens only for real text (as the JSON answer omits it). */
  let pendingSpace = '';
  const calls = new Map<number, OpenItem & { kind: 'call' }>();
  /** All reasoning text of the response, for `reasoning_tokens`. */
  let reasoningText = '';
  /** `reasoning.summary` asked: reasoning streams as the summary (reasoning_summary_* events). */
  const asSummary = meta.echo.reasoningSummary !== null;

  const frame = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`;

  const start = () => {
    if (started) return '';
    started = true;
    const response = responseObject(meta, 'in_progress', [], null);
    return frame('response.created', { response }) + frame('response.in_progress', { response });
  };

  /** Closes the open item; `finish` is the request's once it has ended (null before). */
  const close = (finish: FinishKind | null = null): string => {
    const it = open;
    if (!it) return '';
    open = null;
    const output_index = it.index;
    switch (it.kind) {
      case 'reasoning': {
        const item_id = reasoningItemId(meta);
        const done = reasoningItem(meta, it.text);
        items[output_index] = done;
        if (asSummary) {
          return (
            frame('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: it.text }) +
            frame('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: summaryPart(it.text) }) +
            frame('response.output_item.done', { output_index, item: done })
          );
        }
        return (
          frame('response.reasoning_text.done', { item_id, output_index, content_index: 0, text: it.text }) +
          frame('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'reasoning_text', text: it.text } }) +
          frame('response.output_item.done', { output_index, item: done })
        );
      }
      case 'message': {
        const item_id = messageItemId(meta);
        const done = messageItem(meta, it.text, finishedMessageStatus(finish));
        items[output_index] = done;
        return (
          frame('response.output_text.done', { item_id, output_index, content_index: 0, text: it.text, logprobs: [] }) +
          frame('response.content_part.done', { item_id, output_index, content_index: 0, part: outputTextPart(it.text) }) +
          frame('response.output_item.done', { output_index, item: done })
        );
      }
      case 'call': {
        const item_id = functionCallItemId(it.callId);
        const done = functionCallItem(meta, it.callId, it.name, it.args);
        items[output_index] = done;
        if (done.type === 'custom_tool_call') {
          // The input is the `input` argument's text, known whole once the call is complete.
          const input = done.input as string;
          return (
            frame('response.custom_tool_call_input.delta', { item_id, output_index, delta: input }) +
            frame('response.custom_tool_call_input.done', { item_id, output_index, input }) +
            frame('response.output_item.done', { output_index, item: done })
          );
        }
        return (
          frame('response.function_call_arguments.done', { item_id, output_index, name: done.name, arguments: it.args }) +
          frame('response.output_item.done', { output_index, item: done })
        );
      }
    }
  };

  const openItem = (it: OpenItem, item: Record<string, unknown>, part: Record<string, unknown> | null): string => {
    let out = close();
    open = it;
    items[it.index] = item;
    out += frame('response.output_item.added', { output_index: it.index, item });
    if (part) out += frame('response.content_part.added', { item_id: item.id, output_index: it.index, content_index: 0, part });
    return out;
  };

  return {
    event(ev: GenEvent) {
      if (ev.kind === 'tokens') return '';
      let out = start();
      switch (ev.kind) {
        case 'reasoning': {
          if (open?.kind !== 'reasoning') {
            const added = { id: reasoningItemId(meta), type: 'reasoning', summary: [], content: [] };
            if (asSummary) {
              out += openItem({ kind: 'reasoning', index: items.length, text: '' }, added, null);
              out += frame('response.reasoning_summary_part.added', { item_id: added.id, output_index: items.length - 1, summary_index: 0, part: summaryPart('') });
            } else {
              out += openItem({ kind: 'reasoning', index: items.length, text: '' }, added, { type: 'reasoning_text', text: '' });
            }
          }
          const it = open as unknown as OpenItem & { kind: 'reasoning' };
          it.text += ev.text;
          reasoningText += ev.text;
          if (asSummary) {
            return out + frame('response.reasoning_summary_text.delta', { item_id: reasoningItemId(meta), output_index: it.index, summary_index: 0, delta: ev.text });
          }
          return out + frame('response.reasoning_text.delta', { item_id: reasoningItemId(meta), output_index: it.index, content_index: 0, delta: ev.text });
        }
        case 'text': {
          if (open?.kind !== 'message') {
            if (ev.text.trim().length === 0) {
              pendingSpace += ev.text;
              return out;
            }
            out += openItem({ kind: 'message', index: items.length, text: '' }, messageItem(meta, '', 'in_progress'), outputTextPart(''));
          }
          const it = open as unknown as OpenItem & { kind: 'message' };
          const delta = pendingSpace + ev.text;
          pendingSpace = '';
          it.text += delta;
          return out + frame('response.output_text.delta', { item_id: messageItemId(meta), output_index: it.index, content_index: 0, delta, logprobs: [] });
        }
        case 'tool_start': {
          pendingSpace = '';
          const it: OpenItem & { kind: 'call' } = { kind: 'call', index: items.length, callId: ev.id, name: ev.name, args: '' };
          calls.set(ev.tool, it);
          const added = functionCallItem(meta, ev.id, ev.name, '');
          if (added.type === 'custom_tool_call') added.input = '';
          return out + openItem(it, added, null);
        }
        case 'tool_args': {
          const it = calls.get(ev.tool);
          if (!it) return out;
          it.args += ev.text;
          // A custom tool's arguments are JSON around its text: its input goes out whole at the end.
          if (meta.origins.origin(it.name).custom) return out;
          return out + frame('response.function_call_arguments.delta', { item_id: functionCallItemId(it.callId), output_index: it.index, delta: ev.text });
        }
        case 'end': {
          out += close(ev.finishReason);
          const usage = usageOf(meta, ev.promptTokens, ev.completionTokens, ev.cachedTokens, reasoningText);
          const status = responseStatus(ev.finishReason);
          const type = status === 'incomplete' ? 'response.incomplete' : 'response.completed';
          return out + frame(type, { response: responseObject(meta, status, items, usage) });
        }
      }
    },
    end() {
      return '';
    },
    error(err) {
      const message = streamErrorText(err);
      const out = start() + close();
      return (
        out +
        frame('error', { code: 'stream_error', message, param: null }) +
        frame('response.failed', { response: responseObject(meta, 'failed', items, null, { code: 'server_error', message }) })
      );
    },
  };
}
